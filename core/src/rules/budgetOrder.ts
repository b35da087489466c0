import { isAdvisoryEvent } from "../model/eventTypes";
import type { EventRecord } from "../model/state";
import { IN_FLIGHT } from "./approval";

/**
 * The order in which one pass re-decides events: those holding the budget first (so one that
 * completes frees its share before the others are decided), then by earliest NotBefore (the one
 * Azure will start soonest gets the budget first), then the longest-waiting. An advisory event
 * never holds the budget (eventsInFlight), whatever its phase.
 */
export function budgetOrder(a: EventRecord, b: EventRecord): number {
  const holds = (e: EventRecord) => (IN_FLIGHT.has(e.phase) && !isAdvisoryEvent(e) ? 0 : 1);
  const nb = (e: EventRecord) => e.notBefore ?? Number.POSITIVE_INFINITY;
  return holds(a) - holds(b) || nb(a) - nb(b) || a.firstSeenAt - b.firstSeenAt;
}
