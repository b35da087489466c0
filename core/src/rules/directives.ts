import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { Directive, RelayReport } from "@quiesce/protocol/relay";
import { type ClusterState, relayHoldsLease } from "../model/state";
import { deferDirectives } from "./windowDeferral";

/**
 * What the reporting relay is told to do: approve the events whose lease it holds and still sees
 * Scheduled (echoing their ids as its document spells them), and recover an event it drained
 * for and lost track of; in a cluster with maintenance windows, which drains to hold.
 */
export function directivesFor(
  state: ClusterState,
  mk: string,
  docEvents: Map<string, ScheduledEvent>,
  hooksByKey: Map<string, RelayReport["hooks"][number]>,
  now: number,
  policy: Policy,
): Directive[] {
  const directives: Directive[] = [];
  const approve: string[] = [];
  let leaseExpiresAt = Number.POSITIVE_INFINITY;
  for (const e of Object.values(state.events)) {
    const seen = docEvents.get(e.key);
    if (
      relayHoldsLease(e, mk) &&
      e.lease !== null &&
      now < e.lease.expiresAt &&
      e.approvedAt === null &&
      e.phase === "Approving" &&
      seen?.EventStatus === "Scheduled"
    ) {
      approve.push(seen.EventId); // echoed exactly as this relay's document spells it
      leaseExpiresAt = Math.min(leaseExpiresAt, e.lease.expiresAt);
    }
    const hooks = hooksByKey.get(e.key);
    // A safety net for a relay that drained and lost track of the event (a running drain is
    // followed by its recover anyway).
    if (
      e.leftAt !== null &&
      !seen &&
      hooks?.drain &&
      hooks.drain.status !== "running" &&
      !hooks.recover
    ) {
      directives.push({ kind: "recover", eventId: hooks.eventId });
    }
  }
  directives.push(...deferDirectives(state, docEvents, now, policy));
  if (approve.length > 0)
    directives.unshift({
      kind: "approve",
      eventIds: approve,
      leaseExpiresAt: new Date(leaseExpiresAt).toISOString(),
    });
  return directives;
}
