import type { TimelineEntry } from "@quiesce/fabric-simulator";

/**
 * The live display's line for an entry of the fabric's timeline (Azure's side), or null for
 * entries it does not narrate. `nameOf` turns an EventId into the scenario's name for it.
 */
export function timelineLine(e: TimelineEntry, nameOf: (id: string) => string): string | null {
  const outcomes = (os: ReadonlyArray<{ eventId: string; outcome: string }>) =>
    os.map((o) => `${nameOf(o.eventId)}: ${o.outcome}`).join(", ");
  switch (e.kind) {
    case "startRequests":
      return `Azure  ← StartRequests from ${e.vm} (${outcomes(e.outcomes)})`;
    case "armAcknowledge":
      return `Azure  ← ARM acknowledge on ${scopeName(e.scope)} from the coordinator's identity ${e.principalId.slice(0, 8)}… (${outcomes(e.outcomes)})`;
    case "document":
      return e.reason ? `Azure  ${e.group} incarnation ${e.incarnation}: ${e.reason}` : null;
    default:
      return null;
  }
}

/** `…/providers/Microsoft.Compute/availabilitySets/avset-db` → `availabilitySets/avset-db`. */
export function scopeName(scope: string): string {
  const parts = scope.split("/").filter((p) => p !== "");
  return parts.length >= 2 ? parts.slice(-2).join("/") : scope;
}
