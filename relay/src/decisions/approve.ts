import { eventKey, isAdvisory, type ScheduledEventsDocument } from "@quiesce/protocol/imds";
import type { ApprovalResult } from "@quiesce/protocol/relay";

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
 * latest document: approving lets the event proceed for every VM it names, so never guess. An
 * advisory event (a Spot rebalance recommendation) is never posted, whoever directs it: Azure
 * says approving one has no effect, so a StartRequests for it could only mislead.
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
    if (isAdvisory(event)) {
      skip(`advisory: approving a ${event.EventType} has no effect`);
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

/** What IMDS answered a StartRequests POST: an HTTP status and body, or no answer at all. */
export type StartRequestsAnswer = { status: number; body: string } | { error: string };

/**
 * One result per posted id from IMDS's answer: 2xx accepted; 5xx or no answer failed (worth
 * another approver); any other status rejected (IMDS refused it: this relay must not retry).
 */
export function classifyStartRequestsAnswer(
  posted: string[],
  answer: StartRequestsAnswer,
  at: string,
): ApprovalResult[] {
  const results = (
    outcome: ApprovalResult["outcome"],
    httpStatus: number | undefined,
    detail: string,
  ) =>
    posted.map(
      (eventId): ApprovalResult => ({
        eventId,
        outcome,
        at,
        httpStatus,
        detail: detail.slice(0, 1024),
      }),
    );
  if ("error" in answer) return results("failed", undefined, answer.error);
  if (answer.status >= 200 && answer.status <= 299)
    return results("accepted", answer.status, "IMDS accepted StartRequests");
  if (answer.status >= 500) return results("failed", answer.status, answer.body.slice(0, 300));
  return results("rejected", answer.status, answer.body.slice(0, 300));
}
