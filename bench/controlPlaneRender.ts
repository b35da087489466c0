import { type ControlPlaneResult, STAGGER_MS } from "./controlPlane";
import { failedRounds } from "./figuresRender";
import type { Summary } from "./stats";

/** latest.md's section for (j), control-plane approval (bench/controlPlane.ts). */

const ms = (v: number) => `${Math.round(v)} ms`;
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const sec = (v: number) => `${(v / 1000).toFixed(1)} s`;
const range = (s: Summary, f: (v: number) => string) =>
  s.n === 0 ? "none measured" : `${f(s.median)} / ${f(s.p90)} (min ${f(s.min)}, max ${f(s.max)})`;
const share = (s: Summary) => (s.n === 0 ? "-" : `${pct(s.median)}; ${pct(s.min)}`);
const seconds = (s: Summary) => (s.n === 0 ? "-" : `${sec(s.median)} / ${sec(s.p90)}`);

export function renderControlPlane(r: ControlPlaneResult): string[] {
  const cutOff = r.runs.flatMap((x) => x.samples.filter((s) => s.cause === "cutOff"));
  const reported = cutOff.filter((s) => s.leaseEnded === "failureReported").length;
  const leases = cutOff.map((s) => s.relayLeasesLost);
  return [
    "## (j) Control-plane approval: fallback due → ARM acknowledge at the fabric",
    "",
    `Default policy (control plane \`afterSeconds\` ${r.afterSeconds} s, approval lease ${r.approvalLeaseSeconds} s, active report interval ${r.activeReportSeconds} s) but a budget large enough to run the rounds at once; QUIESCE_CONTROL_PLANE on, against the fabric simulator's loopback ARM. ${r.repetitions} rounds per cause and sweep interval, each in its own availability set of 2 VMs, started ${STAGGER_MS / 1000} s apart (so their due moments spread over the sweep's period; up to every round of a cause in flight at once, and the acknowledges one sweep finds due are made one after the other); a ${r.noticeSeconds / 60}-minute notice at time scale ${r.timeScale} (simulated time is real time: the coordinator's timers do not scale). Causes: the group's relays died after draining (held by an operator before a drain could end, stopped once both drains were reported; due ${r.afterSeconds} s after the event turned Ready), or every VM of the group got HTTP 500 from IMDS StartRequests (due when the last relay lease ended unconfirmed: ${reported} of ${cutOff.length} by the relay's failure report after its 10 s of StartRequests retries, ${cutOff.length - reported} at the lease's expiry; ${leases.length > 0 ? `${Math.min(...leases)}–${Math.max(...leases)}` : "no"} relay leases lost first). Measured ${r.date}.`,
    "",
    "| Sweep interval | Cause | Due → acknowledge at the fabric (median / p90) | Notice window still saved (median; least) | First sight → approval (median / p90) |",
    "| --- | --- | --- | --- | --- |",
    ...r.runs.flatMap((x) =>
      (
        [
          ["relays died after draining", x.noRelay],
          ["cut off from IMDS StartRequests", x.cutOff],
          ["both", x.all],
        ] as const
      ).map(
        ([cause, f]) =>
          `| ${x.sweepSeconds} s${x.sweepSeconds === 10 ? " (default)" : ""} | ${cause} | ${range(f.delayMs, ms)} | ${share(f.savedShare)} | ${seconds(f.firstSightToApprovalMs)} |`,
      ),
    ),
    "",
    ...failedRounds([
      ...r.runs.flatMap((x) =>
        (x.failedRounds ?? []).map((f) => ({
          ...f,
          round: `sweep ${x.sweepSeconds} s, ${f.round}`,
        })),
      ),
      ...(r.settingsNotRun ?? []),
    ]),
  ];
}
