import type { EventDetail } from "@quiesce/cli";
import { eventLine } from "@quiesce/cli";
import type { TimelineEntry } from "@quiesce/fabric-simulator";
import { delay } from "@quiesce/protocol";
import type { LocalCluster } from "./cluster";
import type { DrainHolds } from "./drainHolds";
import { type BackendRow, LoadBalancerWatch } from "./loadBalancerWatch";
import { timelineLine } from "./narrate";
import { simClockOf } from "./noticeSaved";
import {
  type Detail,
  describeStep,
  expectationProblems,
  premiseNotMet,
  type StoryProblem,
  unmetPremise,
} from "./premises";
import type { Scenario, ScenarioStep } from "./scenario";
import { runStep } from "./steps";
import { type EventSummary, summarize } from "./summary";

/**
 * Plays a scenario's steps at their simulated times and narrates what happens, in plain words:
 * Azure's side from the simulator's timeline, Quiesce's side from the status API. A step whose
 * premise (premises.ts) does not hold at its time waits for it, the narration going on, up to
 * the scenario's premiseTimeoutSeconds; then it is played anyway and the story's problem kept.
 */

export interface PlayResult {
  summaries: EventSummary[];
  /** The load balancers' backends: admin states, simulated requests routed and dropped. */
  backends: BackendRow[];
  timedOut: boolean;
  /** Stories not told as written: premises not met, steps that failed, expectations missed. */
  problems: StoryProblem[];
}

const ENDED = new Set(["Completed", "Cancelled"]);

export async function play(
  scenario: Scenario,
  cluster: LocalCluster,
  say: (line: string) => void,
  signal?: AbortSignal,
  drainHolds?: DrainHolds,
): Promise<PlayResult> {
  const { fabric } = cluster;
  const realStart = Date.now();
  const simStart = fabric.now().simMs;
  const stamp = () => {
    const sim = Math.round((fabric.now().simMs - simStart) / 1000);
    const mm = String(Math.floor(sim / 60)).padStart(2, "0");
    const ss = String(sim % 60).padStart(2, "0");
    return `+${((Date.now() - realStart) / 1000).toFixed(1).padStart(5)}s  sim ${mm}:${ss}`;
  };
  const log = (line: string) => say(`${stamp()}  ${line}`);

  const ids = new Map<string, string>(); // scenario name → EventId
  const nameOf = (id: string) =>
    [...ids].find(([, v]) => v.toLowerCase() === id.toLowerCase())?.[0] ?? id;
  const unsubscribe = fabric.onTimeline((e: TimelineEntry) => {
    const line = timelineLine(e, nameOf);
    if (line) log(line);
  });
  const lbs = new LoadBalancerWatch();
  lbs.observe(fabric.loadBalancers(), Date.now());

  const steps = [...scenario.steps].sort((a, b) => a.at - b.at);
  const lastLine = new Map<string, string>();
  const details = new Map<string, EventDetail>();
  const deadline = realStart + scenario.timeoutSeconds * 1000;
  let next = 0;
  let timedOut = false;
  const problems: StoryProblem[] = [];
  const detailOf: Detail = async (name) => {
    const id = ids.get(name);
    return id ? cluster.status.event(id, cluster.cluster).catch(() => null) : null;
  };
  /** Real ms since the next step fell due with its premise unmet; null while none waits. */
  let waitingSince: number | null = null;
  const play1 = async (step: ScenarioStep) => {
    // A step can lose a race with the fabric (an event already gone when a cancel comes): the
    // story is then not the one written; say so, go on.
    const eventIdFor = (name: string) => drainHolds?.beforeSchedule(name);
    await runStep(step, { cluster, ids, log, eventIdFor }).catch((e: unknown) => {
      const problem = `step ${describeStep(step)} failed: ${(e as Error).message}`;
      problems.push({ event: "name" in step ? step.name : null, problem });
      log(`scenario: ${problem}`);
    });
    if (step.action === "schedule" && drainHolds?.holding().includes(step.name))
      log(`scenario: the drains of ${step.name} end only once the operator's hold is in place`);
    if (step.action === "hold" && step.whileDraining) drainHolds?.release(step.name);
  };
  try {
    for (;;) {
      if (signal?.aborted) break;
      const simElapsed = (fabric.now().simMs - simStart) / 1000;
      while (next < steps.length && (steps[next] as ScenarioStep).at <= simElapsed) {
        const step = steps[next] as ScenarioStep;
        const unmet = await unmetPremise(step, detailOf);
        if (unmet) {
          if (waitingSince === null)
            log(`scenario: ${describeStep(step)} waits for: ${unmet.premise}`);
          waitingSince ??= Date.now();
          const waited = (Date.now() - waitingSince) / 1000;
          if (waited < scenario.premiseTimeoutSeconds && !unmet.final) break;
          const p = premiseNotMet(step, unmet, Math.round(waited));
          problems.push(p);
          log(`scenario: ${p.problem}`);
        }
        waitingSince = null;
        next++;
        await play1(step);
      }
      for (const line of lbs.observe(fabric.loadBalancers(), Date.now())) log(line);
      for (const [name, id] of ids) {
        const d = await cluster.status.event(id, cluster.cluster).catch(() => null);
        if (!d) continue;
        details.set(name, d);
        const line = eventLine(d, name);
        if (lastLine.get(name) !== line) {
          lastLine.set(name, line);
          log(`Quiesce ${line}`);
        }
      }
      const allScheduled = next >= steps.length;
      // An event Azure removed that Quiesce never saw (no relay polled in time) is over too.
      const allEnded =
        allScheduled &&
        [...ids].every(([n, id]) => {
          const d = details.get(n);
          return d ? ENDED.has(d.phase) : fabric.event(id)?.removedAt !== undefined;
        });
      if (allEnded) break;
      if (Date.now() > deadline) {
        timedOut = true;
        break;
      }
      await delay(250);
    }
  } finally {
    unsubscribe();
    drainHolds?.releaseAll();
  }
  problems.push(
    ...expectationProblems(steps, (name) => {
      const id = ids.get(name);
      return (id && fabric.event(id)?.approvedBy) || null;
    }),
  );
  const toSim = simClockOf(fabric.now());
  const summaries = [...ids].map(([name, id]) =>
    summarize(
      name,
      fabric.event(id),
      details.get(name) ?? null,
      toSim,
      problems.filter((p) => p.event === name).map((p) => p.problem),
    ),
  );
  return { summaries, backends: lbs.rows(Date.now()), timedOut, problems };
}
