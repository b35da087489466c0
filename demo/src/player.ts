import type { EventDetail } from "@quiesce/cli";
import { eventLine } from "@quiesce/cli";
import type { TimelineEntry } from "@quiesce/fabric-simulator";
import { delay } from "@quiesce/protocol";
import type { LocalCluster } from "./cluster";
import { type BackendRow, LoadBalancerWatch } from "./loadBalancerWatch";
import { timelineLine } from "./narrate";
import type { Scenario, ScenarioStep } from "./scenario";
import { runStep } from "./steps";
import { type EventSummary, summarize } from "./summary";

/**
 * Plays a scenario's steps at their simulated times and narrates what happens, in plain words:
 * Azure's side from the simulator's timeline, Quiesce's side from the status API.
 */

export interface PlayResult {
  summaries: EventSummary[];
  /** The load balancers' backends: admin states, simulated requests routed and dropped. */
  backends: BackendRow[];
  timedOut: boolean;
}

const ENDED = new Set(["Completed", "Cancelled"]);

export async function play(
  scenario: Scenario,
  cluster: LocalCluster,
  say: (line: string) => void,
  signal?: AbortSignal,
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
  try {
    for (;;) {
      if (signal?.aborted) break;
      const simElapsed = (fabric.now().simMs - simStart) / 1000;
      while (next < steps.length && (steps[next] as ScenarioStep).at <= simElapsed) {
        const step = steps[next++] as ScenarioStep;
        // A step can lose a race with the fabric (an event already gone when a cancel comes): say so, go on.
        await runStep(step, { cluster, ids, log, ...(signal ? { signal } : {}) }).catch(
          (e: unknown) =>
            log(`scenario: step ${step.action} at ${step.at} s failed: ${(e as Error).message}`),
        );
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
  }
  const summaries = [...ids].map(([name, id]) =>
    summarize(name, fabric.event(id), details.get(name) ?? null),
  );
  return { summaries, backends: lbs.rows(Date.now()), timedOut };
}
