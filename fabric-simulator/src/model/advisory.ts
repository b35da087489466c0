import { isAdvisory } from "@quiesce/protocol/imds";
import { removeEvent, replaceActive } from "./state";
import type { FabricState, Instant, SimEvent } from "./types";

/**
 * Spot rebalance recommendations (SpotRebalanceRecommendation), the one advisory event type:
 * "Rebalance notifications are only advisory. Unlike preempt notifications, acknowledging them
 * has no effect" (learn.microsoft.com/azure/virtual-machines/spot-eviction-risk-notifications).
 * Microsoft does not say how long one stays in the document, nor what its NotBefore means; the
 * simulator's rule (its own, verified against nothing) is: it stays Scheduled, never Started,
 * for its DurationInSeconds when that is positive, else until its NotBefore, then leaves; and it
 * leaves at once when a Preempt of its VM follows (the risk it announced came true).
 */

/** Simulated ms the advisory event leaves the document, from when it was scheduled. */
export function advisoryEndsAtMs(
  scheduledAtMs: number,
  durationInSeconds: number,
  notBeforeMs: number,
): number {
  return durationInSeconds > 0 ? scheduledAtMs + durationInSeconds * 1000 : notBeforeMs;
}

/**
 * A Preempt was scheduled: the rebalance recommendations of its VMs leave the document (or, when
 * one names other VMs too, stop naming these). The caller publishes the one new document.
 */
export function supersededByPreempt(
  state: FabricState,
  preempt: SimEvent,
  at: Instant,
): { state: FabricState; superseded: string[] } {
  if (preempt.eventType !== "Preempt") return { state, superseded: [] };
  const evicted = new Set(preempt.resources);
  let next = state;
  const superseded: string[] = [];
  for (const e of state.active) {
    if (e.group !== preempt.group || !isAdvisory({ EventType: e.eventType })) continue;
    if (!e.resources.some((r) => evicted.has(r))) continue;
    const left = e.resources.filter((r) => !evicted.has(r));
    next =
      left.length === 0
        ? removeEvent(next, e, "completed", at)
        : replaceActive(next, { ...e, resources: left });
    superseded.push(e.eventId);
  }
  return { state: next, superseded };
}
