import { isAdvisory } from "@quiesce/protocol/imds";
import type { EventRecord } from "./state";

/**
 * Preempt (Spot eviction) and Terminate (scale-in) delete the VMs they name: nothing comes back to
 * recover, and they happen whatever we decide, so they neither wait for nor hold the cluster's
 * budget of events in flight.
 */
export const DELETES_VMS: ReadonlySet<string> = new Set(["Preempt", "Terminate"]);

/**
 * The one rule for advisory events (protocol's ADVISORY_EVENT_TYPES: a Spot rebalance
 * recommendation), applied to the stored event type: acknowledging one has no effect, so the
 * coordinator never elects an approver for it, never acknowledges it through ARM, never drains
 * for it (hooks, load balancer) and never counts it against maxEventsInFlight. It only tells
 * operators. Its phase stays Observed while Azure shows it and ends Completed (phase.ts).
 */
export function isAdvisoryEvent(e: Pick<EventRecord, "eventType">): boolean {
  return isAdvisory({ EventType: e.eventType });
}

/** What an advisory event waits for, in the words the status API and its timeline show. */
export function advisoryNote(e: Pick<EventRecord, "eventType">): string {
  const what =
    e.eventType === "SpotRebalanceRecommendation" ? "Spot rebalance recommendation" : e.eventType;
  return `advisory: ${what}, nothing to approve (acknowledging it has no effect)`;
}
