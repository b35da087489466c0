import { z } from "zod";

/**
 * The IMDS Scheduled Events document, as every api-version from 2017-03-01 to 2020-07-01 serves it.
 * Fields added after the preview are optional; unknown fields are kept (Azure adds fields over
 * time and a relay must not drop an event because of one); an unknown EventType is kept as its
 * string so a new kind of maintenance still blocks approval instead of vanishing.
 */

export const SCHEDULED_EVENTS_API_VERSION = "2020-07-01";

export const KNOWN_EVENT_TYPES = [
  "Freeze",
  "Reboot",
  "Redeploy",
  "Preempt",
  "Terminate",
  "SpotRebalanceRecommendation",
] as const;
export type KnownEventType = (typeof KNOWN_EVENT_TYPES)[number];

/**
 * Spot's rebalance recommendation (preview, "Spot Plus"): a raised eviction risk announced as a
 * scheduled event of its own, served by IMDS only under a newer api-version
 * (REBALANCE_API_VERSION) and copied off the VM through Event Grid. "Rebalance notifications are
 * only advisory. Unlike preempt notifications, acknowledging them has no effect"
 * (learn.microsoft.com/azure/virtual-machines/spot-eviction-risk-notifications): nothing ever
 * approves one, and none waits for an approval.
 */
export const ADVISORY_EVENT_TYPES: ReadonlySet<string> = new Set(["SpotRebalanceRecommendation"]);

/** Whether the event only advises (approving it does nothing): see ADVISORY_EVENT_TYPES. */
export function isAdvisory(event: Pick<ScheduledEvent, "EventType">): boolean {
  return ADVISORY_EVENT_TYPES.has(event.EventType);
}

/**
 * The Scheduled Events api-version that carries rebalance recommendations. Microsoft's page says
 * only "a different version"; 2024-07-09 is the one OpenShift's Azure Spot end-to-end mock
 * requires for them (openshift/cluster-api-actuator-pkg, pkg/infra/mock/metadata_mock.go):
 * verified against that code, not against Azure.
 */
export const REBALANCE_API_VERSION = "2024-07-09";

/** The two statuses the docs define, matched exactly (case as Azure serves it). */
export const EventStatus = z.enum(["Scheduled", "Started"]);
export type EventStatus = z.infer<typeof EventStatus>;

const RFC1123 = /^[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} (GMT|UTC|Z)$/;
const ISO8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * `NotBefore` is RFC 1123 today, ISO 8601 in the 2017 preview, `""` once Started, or absent.
 * Parsed to epoch milliseconds, `null` when there is none. Returns `undefined` for text that is
 * neither form, so the schema can reject it with a clear message.
 */
export function parseNotBefore(text: string | null | undefined): number | null | undefined {
  if (text === undefined || text === null) return null;
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (!RFC1123.test(trimmed) && !ISO8601.test(trimmed)) return undefined;
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? undefined : ms;
}

export const ScheduledEvent = z.looseObject({
  EventId: z.string().min(1).max(128),
  EventType: z.string().min(1).max(64),
  ResourceType: z.string().max(64).optional(),
  Resources: z.array(z.string().min(1).max(256)).max(1000),
  EventStatus,
  NotBefore: z
    .string()
    .max(64)
    .nullish()
    .refine((v) => parseNotBefore(v) !== undefined, {
      message: "NotBefore must be an RFC 1123 or ISO 8601 time, or empty",
    }),
  Description: z.string().max(4096).nullish(),
  EventSource: z.string().max(64).nullish(),
  DurationInSeconds: z.number().int().min(-1).nullish(),
});
export type ScheduledEvent = z.infer<typeof ScheduledEvent>;

export const ScheduledEventsDocument = z.looseObject({
  DocumentIncarnation: z.number().int().nonnegative(),
  Events: z.array(ScheduledEvent).max(100),
});
export type ScheduledEventsDocument = z.infer<typeof ScheduledEventsDocument>;

/** EventIds are compared case-insensitively (captures show both cases) but echoed as received. */
export function eventKey(eventId: string): string {
  return eventId.toLowerCase();
}

export function sameEventId(a: string, b: string): boolean {
  return eventKey(a) === eventKey(b);
}

export function notBeforeMs(event: Pick<ScheduledEvent, "NotBefore">): number | null {
  return parseNotBefore(event.NotBefore) ?? null;
}

/** Resource names in `Resources` are VM names; Azure compares them without regard to case. */
export function namesVm(event: Pick<ScheduledEvent, "Resources">, vmName: string): boolean {
  const wanted = vmName.toLowerCase();
  return event.Resources.some((r) => r.toLowerCase() === wanted);
}

export const StartRequest = z.strictObject({ EventId: z.string().min(1).max(128) });
export type StartRequest = z.infer<typeof StartRequest>;

/** The approval body. The 2017 preview also sent DocumentIncarnation; today's API ignores it. */
export const StartRequestsBody = z.looseObject({
  StartRequests: z.array(StartRequest).min(1).max(100),
  // The preview docs' own example sends it as a string ("DocumentIncarnation":"5").
  DocumentIncarnation: z.union([z.number().int(), z.string().regex(/^\d+$/)]).optional(),
});
export type StartRequestsBody = z.infer<typeof StartRequestsBody>;
