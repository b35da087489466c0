import type { EventDetail } from "@quiesce/cli";
import { eventLine } from "@quiesce/cli";
import type { TimelineEntry } from "@quiesce/fabric-simulator";
import { delay } from "@quiesce/protocol";
import type { LocalCluster } from "./cluster";
import type { Scenario, ScenarioStep } from "./scenario";
import { type EventSummary, summarize } from "./summary";

/**
 * Plays a scenario's steps at their simulated times and narrates what happens, in plain words:
 * Azure's side from the simulator's timeline, Quiesce's side from the status API.
 */

export interface PlayResult {
  summaries: EventSummary[];
  timedOut: boolean;
}

const ENDED = new Set(["Completed", "Cancelled"]);
/** Real time a step waits for Quiesce to see the event it acts on (relays poll IMDS once a second). */
const SEEN_TIMEOUT_MS = 10_000;

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
  const idOf = (name: string) => {
    const id = ids.get(name);
    if (id === undefined) throw new Error(`event "${name}" was never scheduled`);
    return id;
  };
  const nameOf = (id: string) =>
    [...ids].find(([, v]) => v.toLowerCase() === id.toLowerCase())?.[0] ?? id;
  const unsubscribe = fabric.onTimeline((e: TimelineEntry) => {
    if (e.kind === "startRequests") {
      const outcomes = e.outcomes.map((o) => `${nameOf(o.eventId)}: ${o.outcome}`).join(", ");
      log(`Azure  ← StartRequests from ${e.vm} (${outcomes})`);
    } else if (e.kind === "document" && e.reason) {
      log(`Azure  ${e.group} incarnation ${e.incarnation}: ${e.reason}`);
    }
  });

  const steps = [...scenario.steps].sort((a, b) => a.at - b.at);
  /**
   * A step that acts on a scheduled event (cancel, startNow, changeResources) first waits until
   * Quiesce has seen it: at a high time scale a few simulated seconds are less than one relay
   * poll, and the outcome would hang on that race ("never reported" instead of "Cancelled").
   */
  const seen = async (name: string) => {
    const id = idOf(name);
    const until = Date.now() + SEEN_TIMEOUT_MS;
    while (Date.now() < until && !signal?.aborted) {
      if (await cluster.status.event(id, cluster.cluster).catch(() => null)) return;
      await delay(100);
    }
  };
  const runStep = async (s: ScenarioStep) => {
    if ("name" in s && s.action !== "schedule") await seen(s.name);
    switch (s.action) {
      case "schedule": {
        const ev = fabric.schedule(s.event);
        ids.set(s.name, ev.eventId);
        log(`scenario: ${s.name} (${ev.eventType} on ${ev.resources.join(", ")})`);
        break;
      }
      case "cancel":
        fabric.cancel(idOf(s.name));
        log(`scenario: Azure cancels ${s.name}`);
        break;
      case "startNow":
        fabric.startNow(idOf(s.name));
        break;
      case "changeResources":
        fabric.changeResources(idOf(s.name), s.resources);
        log(`scenario: ${s.name} now affects ${s.resources.join(", ")}`);
        break;
      case "fault":
        fabric.injectFault(s.fault);
        log(`scenario: IMDS fault ${JSON.stringify(s.fault)}`);
        break;
      case "stopRelay":
        await cluster.stopRelay(s.vm);
        log(`scenario: relay on ${s.vm} stopped`);
        break;
      case "startRelay":
        await cluster.startRelay(s.vm);
        log(`scenario: relay on ${s.vm} started`);
        break;
    }
  };

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
        await runStep(step).catch((e: unknown) =>
          log(`scenario: step ${step.action} at ${step.at} s failed: ${(e as Error).message}`),
        );
      }
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
  return { summaries, timedOut };
}
