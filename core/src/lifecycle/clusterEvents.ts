import type { ClusterState } from "../model/state";
import { isEnded } from "./evaluate";

/**
 * Whether a report decided on its own events alone must be decided again with all the cluster's
 * events. The others matter to a report only through the budget of events in flight, which the
 * core reads when it elects an approver, and it elects only for an event that is Ready (the
 * cadence's "waiting for the budget" is about Ready events too). So: any event Ready after the
 * decision, or given a lease by it. Pure: the two states in, a yes or no out.
 */
export function needsClusterEvents(before: ClusterState, after: ClusterState): boolean {
  return Object.values(after.events).some(
    (e) =>
      !isEnded(e) &&
      (e.phase === "Ready" || (e.lease !== null && e.lease !== before.events[e.key]?.lease)),
  );
}
