import { isAdvisory } from "@quiesce/protocol/imds";
import { expireFaults } from "./faults";
import { deleteEvicted, removeEvent, replaceActive, started } from "./state";
import { publishReleasing } from "./terminate";
import type { FabricState, Instant, SimEvent } from "./types";

interface Due {
  readonly atMs: number;
  readonly event: SimEvent;
  readonly kind: "start" | "remove";
}

/** The earliest due transition; on a tie, one of `preferGroup` so a group's batch stays whole. */
function nextDue(state: FabricState, nowMs: number, preferGroup?: string): Due | undefined {
  let best: Due | undefined;
  for (const e of state.active) {
    // An advisory event (a Spot rebalance recommendation) never starts; it leaves at endsAtMs.
    const advisory = e.phase === "Scheduled" && isAdvisory({ EventType: e.eventType });
    const due: Due | undefined = advisory
      ? e.endsAtMs !== undefined && e.endsAtMs <= nowMs
        ? { atMs: e.endsAtMs, event: e, kind: "remove" }
        : undefined
      : e.phase === "Scheduled" && e.notBeforeMs !== null && e.notBeforeMs <= nowMs
        ? { atMs: e.notBeforeMs, event: e, kind: "start" }
        : e.phase === "Started" && e.endsAtMs !== undefined && e.endsAtMs <= nowMs
          ? { atMs: e.endsAtMs, event: e, kind: "remove" }
          : undefined;
    if (!due) continue;
    if (
      !best ||
      due.atMs < best.atMs ||
      (due.atMs === best.atMs &&
        due.event.group === preferGroup &&
        best.event.group !== preferGroup)
    ) {
      best = due;
    }
  }
  return best;
}

/**
 * Let simulated time reach `now`: events past NotBefore start, Started events past their duration
 * leave. Each transition is stamped with the simulated instant it was due (not when it was
 * noticed), so the timeline does not depend on how often the shell ticks. Transitions due at the
 * same instant in the same group share one new document, as Azure publishes them together.
 */
export function advance(state: FabricState, now: Instant): FabricState {
  let next = expireFaults(state, now.simMs);
  for (;;) {
    const due = nextDue(next, now.simMs);
    if (!due) return next;
    const at: Instant = { simMs: due.atMs, realMs: now.realMs };
    const batch: Due[] = [];
    for (
      let d: Due | undefined = due;
      d && d.atMs === due.atMs && d.event.group === due.event.group;
    ) {
      batch.push(d);
      next =
        d.kind === "start"
          ? replaceActive(next, started(d.event, at, "notBefore"))
          : removeEvent(next, d.event, "completed", at);
      const after = nextDue(next, now.simMs, due.event.group);
      d =
        after && after.atMs === due.atMs && after.event.group === due.event.group
          ? after
          : undefined;
    }
    const reason = batch
      .map((d) =>
        d.kind === "start"
          ? `${d.event.eventId} Started at NotBefore`
          : `${d.event.eventId} completed`,
      )
      .join("; ");
    // A Terminate started at its NotBefore no longer holds the scale set's approved ones.
    next = publishReleasing(next, due.event.group, reason, at);
    for (const d of batch) if (d.kind === "remove") next = deleteEvicted(next, d.event, at);
  }
}
