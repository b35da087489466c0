import { type ApprovalResult, eventKey, type ScheduledEventsDocument } from "@quiesce/shared";

export interface ApprovalPlan {
  /** EventIds exactly as the document spells them, for the StartRequests body. */
  post: string[];
  /** Directed ids we will not approve, with why. */
  skipped: ApprovalResult[];
}

/** Do not post again for an id IMDS accepted this recently (directives repeat while a lease holds). */
export const REPOST_AFTER_MS = 15_000;

/**
 * An approve directive covers exactly the ids it names, and only those still Scheduled in the
 * latest document: approving lets the event proceed for every VM it names, so never guess.
 */
export function planApproval(
  doc: ScheduledEventsDocument | null,
  directed: string[],
  recent: ApprovalResult[],
  now: number,
): ApprovalPlan {
  const at = new Date(now).toISOString();
  const post: string[] = [];
  const skipped: ApprovalResult[] = [];
  const seen = new Set<string>();
  for (const id of directed) {
    const key = eventKey(id);
    if (seen.has(key)) continue;
    seen.add(key);
    const event = doc?.Events.find((e) => eventKey(e.EventId) === key);
    const skip = (detail: string) => skipped.push({ eventId: id, outcome: "skipped", at, detail });
    if (!event) {
      skip("not in the latest document");
      continue;
    }
    if (event.EventStatus !== "Scheduled") {
      skip(`EventStatus is ${event.EventStatus}, not Scheduled`);
      continue;
    }
    const lastAccepted = recent.findLast(
      (a) => eventKey(a.eventId) === key && a.outcome === "accepted",
    );
    if (lastAccepted && now - Date.parse(lastAccepted.at) < REPOST_AFTER_MS) continue;
    post.push(event.EventId);
  }
  return { post, skipped };
}
