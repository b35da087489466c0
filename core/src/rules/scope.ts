import { eventKey } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { Member } from "../model/state";

/**
 * The events a report concerns: those in its document, in its hook state and in its approval
 * results, and those its member row last listed (the ones that may have just left). The core
 * re-decides exactly these, and the store loads their readiness: one definition for both.
 */
export function reportScope(
  report: Pick<RelayReport, "document" | "hooks" | "approvals">,
  member: Pick<Member, "eventKeys"> | undefined,
): Set<string> {
  return new Set([
    ...(report.document?.Events ?? []).map((e) => eventKey(e.EventId)),
    ...report.hooks.map((h) => eventKey(h.eventId)),
    ...report.approvals.map((a) => eventKey(a.eventId)),
    ...(member?.eventKeys ?? []),
  ]);
}
