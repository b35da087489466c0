import { z } from "zod";
import type { Result } from "../result";
import { PATCH_RUN_EVENT_TYPES, type PatchRunEvent, parsePatchRunEvent } from "./patchRun";
import {
  isScheduledEventType,
  type PublishedObservation,
  PublishedScheduledEvent,
  parseScheduledEventId,
} from "./scheduledEvent";

/**
 * Event Grid deliveries to the coordinator's webhook: an array of events in the Event Grid schema
 * (what a system topic's subscription delivers by default), or CloudEvents 1.0 (one event, or a
 * batch). Sources: azure-compute-docs `scheduled-events-event-grid.md` (the payload, 05/01/2026),
 * learn.microsoft.com "Event Grid event schema", "CloudEvents v1.0 schema" and "Endpoint
 * validation with Event Grid events" (the handshake).
 *
 * The docs name the event type three ways (`microsoft.maintenance/scheduledevents/write`,
 * `Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted`, and the
 * topic as `Microsoft.Maintenance.ScheduledEvents`), so an event is taken for a scheduled event
 * by its resource type and id, never by `eventType`. Other events of the topic (AKS planned
 * maintenance, `ManagedCluster`) are counted as ignored, not refused.
 */

export const SUBSCRIPTION_VALIDATION_EVENT = "Microsoft.EventGrid.SubscriptionValidationEvent";

const ResourceInfo = z.looseObject({
  id: z.string().min(1).max(1024),
  name: z.string().max(256).optional(),
  type: z.string().max(256),
  properties: z.unknown(),
});

const MaintenanceData = z.looseObject({
  resourceInfo: ResourceInfo,
  operationalInfo: z.looseObject({ resourceEventTime: z.string().max(64).optional() }).optional(),
  apiVersion: z.string().max(64).optional(),
});

const EventGridEvent = z
  .looseObject({
    id: z.string().min(1).max(256),
    topic: z.string().max(1024).optional(),
    subject: z.string().max(1024),
    eventType: z.string().min(1).max(256),
    eventTime: z.string().max(64),
    data: z.unknown(),
    dataVersion: z.string().max(32).optional(),
    metadataVersion: z.string().max(32).optional(),
  })
  .transform((e): Envelope => ({ id: e.id, type: e.eventType, time: e.eventTime, data: e.data }));

const CloudEvent = z
  .looseObject({
    specversion: z.literal("1.0"),
    id: z.string().min(1).max(256),
    source: z.string().max(1024),
    type: z.string().min(1).max(256),
    subject: z.string().max(1024).optional(),
    time: z.string().max(64).optional(),
    data: z.unknown(),
  })
  .transform((e): Envelope => ({ id: e.id, type: e.type, time: e.time, data: e.data }));

/**
 * At most this many events in one delivery: Event Grid's `maxEventsPerBatch` is 1 to 5,000 and
 * "this number is never exceeded" (learn.microsoft.com "Event Grid message delivery and retry",
 * Output batching).
 */
export const MAX_EVENTS_PER_DELIVERY = 5_000;

/**
 * The largest delivery body the webhook accepts, independent of the relay report limit
 * (QUIESCE_MAX_BODY_BYTES): a batch aims at `preferredBatchSizeInKilobytes` (1 to 1,024) "on a
 * best-effort basis", a single event larger than that is delivered alone, and an event may be up
 * to 1 MB (learn.microsoft.com "Event Grid message delivery and retry", "Event Grid event
 * schema"). Twice that leaves room for the envelope fields Event Grid adds and its best effort;
 * a 413 would lose the batch (Event Grid never retries it).
 */
export const MAX_DELIVERY_BYTES = 2 * 1024 * 1024;

/** An event of a delivery that could not be used: never applied, and never silently dropped. */
export interface RejectedEvent {
  /** Its position in the delivery (0 for a single structured CloudEvent). */
  index: number;
  /** Event Grid's id for it, when it has a usable one. */
  id: string | null;
  reason: string;
}

export type EventGridDelivery =
  /** Event Grid's subscription validation handshake: answer `{validationResponse: code}`. */
  | { kind: "validation"; validationCode: string; validationUrl: string | null }
  | {
      kind: "events";
      observations: PublishedObservation[];
      /** Update Manager's pre- and post-maintenance events (patchRun.ts); absent when none. */
      patchRuns?: PatchRunEvent[];
      /** Events of other types or resources (AKS maintenance, say): counted, not used. */
      ignored: number;
      /**
       * Events in neither schema, and scheduled events whose properties do not parse: the rest of
       * the delivery is still used; the caller decides how they reach an operator.
       */
      rejected: RejectedEvent[];
    };

interface Envelope {
  id: string;
  type: string;
  time: string | undefined;
  data: unknown;
}

/**
 * Parses a delivery's JSON body: an array of events (Event Grid schema, or a CloudEvents batch,
 * `application/cloudevents-batch+json`) or one structured CloudEvent
 * (`application/cloudevents+json`). Only a body that is no delivery at all (empty, or more
 * events than Event Grid ever sends) is an error. Each event stands alone: one in neither schema,
 * or a scheduled event whose properties do not parse, is `rejected` and the others are still
 * returned, since Event Grid retries or dead-letters a delivery as a whole ("all or none").
 * Event Grid delivers at least once and in no particular order: duplicates and reordering are
 * the caller's to reconcile (`deliveryId`, `observedAt`).
 */
export function parseEventGridDelivery(body: unknown): Result<EventGridDelivery> {
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) return err("an Event Grid delivery holds at least one event");
  if (items.length > MAX_EVENTS_PER_DELIVERY)
    return err(`more than ${MAX_EVENTS_PER_DELIVERY} events in one delivery`);
  const envelopes: Array<Envelope & { index: number }> = [];
  const rejected: RejectedEvent[] = [];
  for (const [index, item] of items.entries()) {
    const e = envelopeOf(item);
    if (e.ok) envelopes.push({ ...e.value, index });
    else rejected.push({ index, id: idOf(item), reason: `event ${index}: ${e.error}` });
  }
  const validation = envelopes.find((e) => e.type === SUBSCRIPTION_VALIDATION_EVENT);
  if (validation) {
    const data = z
      .looseObject({
        validationCode: z.string().min(1).max(256),
        validationUrl: z.string().max(2048).optional(),
      })
      .safeParse(validation.data);
    if (!data.success) return err("subscription validation event without a validationCode");
    return ok({
      kind: "validation",
      validationCode: data.data.validationCode,
      validationUrl: data.data.validationUrl ?? null,
    });
  }
  const observations: PublishedObservation[] = [];
  const patchRuns: PatchRunEvent[] = [];
  let ignored = 0;
  for (const e of envelopes) {
    if (PATCH_RUN_EVENT_TYPES.includes(e.type)) {
      const run = parsePatchRunEvent(e.type, e.id, e.data);
      if (run.ok) patchRuns.push(run.value);
      else
        rejected.push({
          index: e.index,
          id: e.id,
          reason: `event ${e.index} (${e.id}): ${run.error}`,
        });
      continue;
    }
    const data = MaintenanceData.safeParse(e.data);
    const located = data.success ? parseScheduledEventId(data.data.resourceInfo.id) : null;
    if (!data.success || !located || !isScheduledEventType(data.data.resourceInfo.type)) {
      ignored++;
      continue;
    }
    const event = PublishedScheduledEvent.safeParse(data.data.resourceInfo.properties);
    if (!event.success) {
      const issue = event.error.issues[0];
      const reason = `event ${e.index} (${e.id}): ${issue?.path.join(".")} ${issue?.message}`;
      rejected.push({ index: e.index, id: e.id, reason });
      continue;
    }
    const at = timeOf(data.data.operationalInfo?.resourceEventTime) ?? timeOf(e.time);
    observations.push({
      source: "eventGrid",
      scope: located.scope,
      event: event.data,
      observedAt: at,
      deliveryId: e.id,
    });
  }
  rejected.sort((a, b) => a.index - b.index);
  return ok({
    kind: "events",
    observations,
    ...(patchRuns.length > 0 ? { patchRuns } : {}),
    ignored,
    rejected,
  });
}

/** The id of an event that did not parse, if it has a plausible one (for the operator's record). */
function idOf(item: unknown): string | null {
  if (item === null || typeof item !== "object") return null;
  const id = (item as Record<string, unknown>).id;
  return typeof id === "string" && id.length > 0 && id.length <= 256 ? id : null;
}

function envelopeOf(item: unknown): Result<Envelope> {
  const cloud = CloudEvent.safeParse(item);
  if (cloud.success) return ok(cloud.data);
  const grid = EventGridEvent.safeParse(item);
  if (grid.success) return ok(grid.data);
  const issue = grid.error.issues[0];
  return err(
    `neither an Event Grid nor a CloudEvents 1.0 event (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"})`,
  );
}

/** Epoch ms of an ISO 8601 time (Azure sends 7 fractional digits, and sometimes no zone: UTC). */
function timeOf(text: string | undefined): number | null {
  if (!text) return null;
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;
  if (!iso.test(text)) return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isNaN(ms) ? null : ms;
}

const ok = <T>(value: T): Result<T> => ({ ok: true, value });
const err = (error: string): Result<never> => ({ ok: false, error });
