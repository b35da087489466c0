import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { SUBSCRIPTION_VALIDATION_EVENT } from "@quiesce/protocol/published";
import { eventGridEvent, publishedStatus } from "../maintenance/published";
import type { FabricState, SimEvent } from "../model/types";
import { publishesOffVm } from "../topology/scheduledEventsPolicy";

/**
 * The publisher's functional core: which changes of a group's events Event Grid delivers, what
 * each delivery and the validation event look like, and what an endpoint's answer means. No I/O.
 *
 * Azure publishes "every time a scheduled event changes state" (scheduled-events-resource-graph.md):
 * new (Scheduled, or Started for an event that skipped Scheduled), Started, a new Resources, and
 * its end, which IMDS shows only as the event leaving the document and Event Grid as Completed or
 * Canceled. Each change is compared document to document (the timeline keeps every document), so
 * an event that started and ended within one catch-up of the clock still yields both deliveries.
 */

/** One event's change between two documents of its group. */
export interface DocumentChange {
  readonly eventId: string;
  readonly status: "Scheduled" | "Started" | "Removed";
  readonly resources: readonly string[];
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** What changed from `prev` (undefined: no document seen yet, as empty) to `next`. */
export function documentChanges(
  prev: ScheduledEventsDocument | undefined,
  next: ScheduledEventsDocument,
): DocumentChange[] {
  const before = new Map((prev?.Events ?? []).map((e) => [e.EventId, e]));
  const changes: DocumentChange[] = [];
  for (const e of next.Events) {
    const was = before.get(e.EventId);
    before.delete(e.EventId);
    if (was && was.EventStatus === e.EventStatus && sameList(was.Resources, e.Resources)) continue;
    changes.push({ eventId: e.EventId, status: e.EventStatus, resources: e.Resources });
  }
  for (const gone of before.values()) {
    changes.push({ eventId: gone.EventId, status: "Removed", resources: gone.Resources });
  }
  return changes;
}

/** Whether the group publishes off the VM (its `scheduledEventsPolicy` opted in). */
export const publishingGroup = (state: FabricState, group: string): boolean =>
  publishesOffVm(state.groups[group]?.scheduledEventsPolicy);

/** The event as it stood at the change (the fabric holds only its latest state). */
function asOfChange(e: SimEvent, change: DocumentChange): SimEvent {
  if (change.status === "Removed") {
    return { ...e, phase: "Removed", removalCause: e.removalCause ?? "completed" };
  }
  return { ...e, phase: change.status, resources: change.resources };
}

/** One change as Event Grid delivers it: the id every copy of it carries, and the event. */
export interface Notification {
  readonly id: string;
  readonly eventId: string;
  readonly group: string;
  readonly eventStatus: "Scheduled" | "Started" | "Completed" | "Canceled";
  /** The Event Grid schema event (the request body is an array of this one event). */
  readonly event: Record<string, unknown>;
}

/** The notification for one change at simulated `atMs`, or null when the event is unknown. */
export function notificationOf(
  state: FabricState,
  group: string,
  change: DocumentChange,
  id: string,
  atMs: number,
): Notification | null {
  const e = [...state.active, ...state.past].find((x) => x.eventId === change.eventId);
  if (!e) return null; // gone with a reset: nothing to say about it
  const snapshot = asOfChange(e, change);
  const event = eventGridEvent(state, snapshot, id, atMs);
  if (!event) return null;
  return { id, eventId: e.eventId, group, eventStatus: publishedStatus(snapshot), event };
}

/** The subscription validation event Event Grid POSTs before any delivery. */
export function validationEvent(
  id: string,
  topic: string,
  validationCode: string,
  validationUrl: string,
  atMs: number,
): Record<string, unknown> {
  return {
    id,
    topic,
    subject: "",
    data: { validationCode, validationUrl },
    eventType: SUBSCRIPTION_VALIDATION_EVENT,
    eventTime: new Date(atMs).toISOString(),
    metadataVersion: "1",
    dataVersion: "1",
  };
}

/** An endpoint's answer: its HTTP status and body, or why there was none (timeout, refused). */
export type Answer =
  | { readonly status: number; readonly body: string }
  | { readonly error: string };

/**
 * What Event Grid does with a webhook's answer ("Event Grid message delivery and retry"): only
 * 200-204 are delivered; 400, 401, 403 and 413 are never retried (dead-lettered, or dropped
 * without a dead-letter destination); anything else (205-299 too, 408, 429, 5xx, a timeout, no
 * connection) is retried (test/contracts/event-grid.test.ts holds this to the docs).
 */
export function verdict(answer: Answer): "delivered" | "refused" | "retry" {
  if ("error" in answer) return "retry";
  if (answer.status >= 200 && answer.status <= 204) return "delivered";
  return [400, 401, 403, 413].includes(answer.status) ? "refused" : "retry";
}

/** The handshake's outcome from the endpoint's answer to the validation event. */
export function handshakeOutcome(
  answer: Answer,
  validationCode: string,
): "succeeded" | "awaitingManualAction" | "failed" {
  if ("error" in answer || answer.status !== 200) return "failed";
  let echoed: unknown;
  try {
    const body: unknown = JSON.parse(answer.body);
    if (body !== null && typeof body === "object" && !Array.isArray(body)) {
      // .NET endpoints answer `ValidationResponse`; the key is read without regard to case.
      const key = Object.keys(body).find((k) => k.toLowerCase() === "validationresponse");
      echoed = key === undefined ? undefined : (body as Record<string, unknown>)[key];
    }
  } catch {
    echoed = undefined;
  }
  if (echoed === undefined) return "awaitingManualAction";
  return echoed === validationCode ? "succeeded" : "failed";
}

/**
 * The headers Event Grid sends a webhook (its docs list them for webhook deliveries):
 * `aeg-event-type` says a validation from a notification.
 */
export function deliveryHeaders(
  subscription: string,
  type: "Notification" | "SubscriptionValidation",
  attemptsBefore: number,
): Record<string, string> {
  return {
    "aeg-event-type": type,
    "aeg-subscription-name": subscription.toUpperCase(),
    "aeg-delivery-count": String(attemptsBefore),
    "aeg-data-version": type === "Notification" ? "3.0" : "1",
    "aeg-metadata-version": "1",
  };
}

/** Azure's retry schedule (10 s, 30 s, 1 min, 5 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h), in ms: 1000 times faster. */
export const COMPRESSED_RETRY_DELAYS_MS = [
  10, 30, 60, 300, 600, 1_800, 3_600, 10_800, 21_600, 43_200,
];

/** The delay before attempt `attempt + 1` (the schedule's last step repeats). */
export const retryDelay = (delays: readonly number[], attempt: number): number =>
  delays[Math.min(attempt - 1, delays.length - 1)] ?? 0;
