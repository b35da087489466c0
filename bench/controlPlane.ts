import type { LocalCluster } from "@quiesce/demo";
import { delay } from "@quiesce/protocol";
import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { startHookedCluster } from "@quiesce/testkit/cluster";
import type { Markers } from "@quiesce/testkit/markers";
import { type ControlPlaneSample, cutOffRound, noRelayRound } from "./controlPlaneRounds";
import { describeFailure, type FailedRound, premise, settleRounds } from "./premise";
import { round, type Summary, summary } from "./stats";

/**
 * (j) Control-plane approval: how soon the coordinator approves through Azure Resource Manager
 * once its fallback is due, and how much of a 15-minute notice that still saves. The whole local
 * system (Azurite, the coordinator with QUIESCE_CONTROL_PLANE on, the fabric simulator and its
 * loopback ARM, one real relay per VM) at time scale 1, so the coordinator's real-time clocks
 * (afterSeconds, the sweep, leases) and the fabric's NotBefore agree: at 60× a 10 s sweep would be
 * 10 simulated minutes, two thirds of the notice, and the figure would measure the compression.
 * A 15-minute notice still takes only as long as the approval does.
 *
 * Each round has its own availability set of two VMs; the rounds of a sweep setting run
 * concurrently, started a few seconds apart, half of each cause (controlPlaneRounds.ts), and
 * the next setting restarts the coordinator (same cluster, same fabric) with its sweep interval:
 * - noRelay: the group's relays die after draining; due `afterSeconds` after it turned Ready;
 * - cutOff: every VM of the group gets HTTP 500 from IMDS StartRequests; due when the last relay
 *   lease ended unconfirmed.
 * Default policy but `maxEventsInFlight` (the budget would otherwise run the rounds one by one).
 */

export interface ControlPlaneFigures {
  /** (i) From the moment the fallback was due to the acknowledge at the fabric. */
  delayMs: Summary;
  /** (ii) (NotBefore − approval) ÷ (NotBefore − first sight). */
  savedShare: Summary;
  firstSightToApprovalMs: Summary;
}

export interface ControlPlaneRun {
  /** The sweep interval; the default QUIESCE_SWEEP_SCHEDULE is every 10 s. */
  sweepSeconds: number;
  all: ControlPlaneFigures;
  noRelay: ControlPlaneFigures;
  cutOff: ControlPlaneFigures;
  samples: ControlPlaneSample[];
  /** Rounds that measured nothing, and why (a premise not met, or the system failing). */
  failedRounds?: FailedRound[];
}

export interface ControlPlaneResult {
  date: string;
  timeScale: 1;
  noticeSeconds: number;
  /** Rounds per cause and sweep setting. */
  repetitions: number;
  afterSeconds: number;
  approvalLeaseSeconds: number;
  activeReportSeconds: number;
  runs: ControlPlaneRun[];
  /** Sweep settings not run (the one before could not leave the cluster quiet), and why. */
  settingsNotRun?: FailedRound[];
}

/**
 * Rounds start this far apart (a golden-ratio step), so the moments their fallbacks fall due
 * spread over a sweep's period: 0.618 s steps modulo a 1 s sweep, 1.6 s steps over a 10 s one.
 * (3.3 s steps against a 10 s sweep repeated three phases.)
 */
export const STAGGER_MS = 1_618;

type Group = { name: string; vms: string[] };

/** Both causes' rounds at once, on the coordinator as it sweeps now; a round that fails is listed. */
async function runAt(
  c: LocalCluster,
  markers: Markers,
  sweepSeconds: number,
  groups: { noRelay: Group[]; cutOff: Group[] },
  log: (s: string) => void,
): Promise<{ run: ControlPlaneRun; started: Set<string> }> {
  const p = DEFAULT_POLICY;
  const started = new Set<string>();
  const { samples, failed } = await settleRounds([
    ...groups.noRelay.map((g, i) => ({
      round: `${g.name} (relays died)`,
      run: delay(i * STAGGER_MS).then(() =>
        noRelayRound(c, markers, g.name, g.vms, p.controlPlaneApproval.afterSeconds, started),
      ),
    })),
    ...groups.cutOff.map((g, i) => ({
      round: `${g.name} (cut off)`,
      run: delay(i * STAGGER_MS + STAGGER_MS / 2).then(() =>
        cutOffRound(c, g.name, g.vms, p.approvalLeaseSeconds, started),
      ),
    })),
  ]);
  const figures = (of: ControlPlaneSample[]): ControlPlaneFigures => ({
    delayMs: summary(of.map((s) => s.delayMs)),
    savedShare: summary(of.map((s) => round(s.savedShare, 4))),
    firstSightToApprovalMs: summary(of.map((s) => s.firstSightToApprovalMs)),
  });
  const run: ControlPlaneRun = {
    sweepSeconds,
    all: figures(samples),
    noRelay: figures(samples.filter((s) => s.cause === "noRelay")),
    cutOff: figures(samples.filter((s) => s.cause === "cutOff")),
    samples,
    failedRounds: failed,
  };
  log(
    `(j) sweep ${sweepSeconds} s: due -> acknowledge median ${run.all.delayMs.median} ms, p90 ${run.all.delayMs.p90} ms; notice saved median ${run.noRelay.savedShare.median} (relays died), ${run.cutOff.savedShare.median} (cut off)${failed.length > 0 ? `; ${failed.length} rounds not measured` : ""}`,
  );
  for (const f of failed) log(`(j) sweep ${sweepSeconds} s, ${f.round}: ${f.problem}`);
  return { run, started };
}

/**
 * The next setting starts from a quiet cluster: every event of this one recovered, the failed
 * rounds' included (each left its group's relays running and its event released).
 */
function settled(c: LocalCluster, started: Set<string>, sweepSeconds: number) {
  return premise(
    `every event of the ${sweepSeconds} s sweep setting Completed before the next`,
    async () => {
      for (const id of started) {
        const d = await c.status.event(id, c.cluster);
        if (d.phase !== "Completed") throw new Error(`${id} ${d.phase}: ${d.waitingFor ?? ""}`);
      }
      return true;
    },
    120_000,
    250,
  );
}

/** What (j) could not measure: its lost rounds, and the sweep settings it could not run. */
export function controlPlaneProblems(r: ControlPlaneResult): string[] {
  return [
    ...r.runs.flatMap((x) =>
      (x.failedRounds ?? []).map((f) => `sweep ${x.sweepSeconds} s, ${f.round}: ${f.problem}`),
    ),
    ...(r.settingsNotRun ?? []).map((f) => `${f.round}: ${f.problem}`),
  ];
}

/** The default QUIESCE_SWEEP_SCHEDULE sweeps every 10 s: the local host does so when given no interval. */
const DEFAULT_SWEEP_SECONDS = 10;
const interval = (seconds: number) =>
  seconds === DEFAULT_SWEEP_SECONDS ? {} : { sweepIntervalMs: seconds * 1000 };

/**
 * Each sweep interval in turn (the default 10 s first, as `npm run bench` runs it), restarting the
 * coordinator between them. One cluster for all: MSAL keeps the managed-identity source and its
 * tokens process-wide, so a second fabric started in this process would be asked with the first
 * one's endpoint or token.
 */
export async function measureControlPlane(
  repetitions: number,
  sweepSeconds: readonly number[],
  log: (s: string) => void,
): Promise<ControlPlaneResult> {
  const groups = (prefix: string) =>
    Array.from({ length: repetitions }, (_, i) => ({
      name: `avset-${prefix}${i}`,
      vms: [`${prefix}${i}-0`, `${prefix}${i}-1`],
    }));
  const noRelay = groups("nr");
  const cutOff = groups("co");
  const [first = DEFAULT_SWEEP_SECONDS, ...others] = sweepSeconds;
  const { c, markers, stop } = await startHookedCluster({
    cluster: "bench-control-plane",
    timeScale: 1,
    topology: {
      groups: [...noRelay, ...cutOff].map((g) => ({
        kind: "availabilitySet" as const,
        name: g.name,
        vms: g.vms,
      })),
    },
    policy: { default: { maxEventsInFlight: 4 * repetitions } },
    controlPlane: true,
    ...interval(first),
  });
  try {
    const runs: ControlPlaneRun[] = [];
    const settingsNotRun: FailedRound[] = [];
    const settings = [first, ...others];
    for (const [i, seconds] of settings.entries()) {
      // A setting whose cluster would not settle leaves the next ones nothing sound to run on.
      const unsettled = settingsNotRun[0];
      if (unsettled) {
        settingsNotRun.push({ round: `sweep ${seconds} s not run`, problem: unsettled.problem });
        continue;
      }
      try {
        if (i > 0) await c.restartCoordinator({ sweepIntervalMs: seconds * 1000 });
        const { run, started } = await runAt(c, markers, seconds, { noRelay, cutOff }, log);
        runs.push(run);
        if (i + 1 < settings.length) await settled(c, started, seconds);
      } catch (e) {
        const round = runs.at(-1)?.sweepSeconds === seconds ? "after" : "not run";
        settingsNotRun.push({
          round: `sweep ${seconds} s ${round}`,
          problem: describeFailure(e).message,
        });
      }
    }
    const measured = runs.filter((x) => x.samples.length > 0);
    if (measured.length === 0)
      throw new Error(
        `no round measured: ${[...runs.flatMap((x) => x.failedRounds ?? []), ...settingsNotRun].map((f) => `${f.round}: ${f.problem}`).join("; ")}`,
      );
    const p = DEFAULT_POLICY;
    return {
      date: new Date().toISOString(),
      timeScale: 1,
      noticeSeconds: 900,
      repetitions,
      afterSeconds: p.controlPlaneApproval.afterSeconds,
      approvalLeaseSeconds: p.approvalLeaseSeconds,
      activeReportSeconds: p.activeReportSeconds,
      runs,
      ...(settingsNotRun.length > 0 ? { settingsNotRun } : {}),
    };
  } finally {
    await stop();
  }
}
