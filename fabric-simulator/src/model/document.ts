import {
  REBALANCE_API_VERSION,
  type ScheduledEvent,
  type ScheduledEventsDocument,
} from "@quiesce/protocol/imds";
import type { FabricState, SimEvent } from "./types";

/** The api-versions of `/metadata/scheduledevents`, oldest first, and what each one added. */
export const SCHEDULED_EVENTS_API_VERSIONS = [
  "2017-03-01",
  "2017-08-01",
  "2017-11-01",
  "2019-01-01",
  "2019-04-01",
  "2019-08-01",
  "2020-07-01",
  // Only for Spot rebalance recommendations (REBALANCE_API_VERSION): the shape is 2020-07-01's.
  "2024-07-09",
] as const;
export type ScheduledEventsApiVersion = (typeof SCHEDULED_EVENTS_API_VERSIONS)[number];

/**
 * The fabric's own view of a group's events: every type shown. The timeline's documents (and the
 * Event Grid publisher that reads them) use it, so a rebalance recommendation, which only the
 * newest api-version serves, is still published off the VM.
 */
export const FABRIC_VIEW: ScheduledEventsApiVersion = "2024-07-09";

/** `Mon, 11 Apr 2022 22:26:58 GMT`, as Azure writes NotBefore since 2017-08-01. */
export function rfc1123(ms: number): string {
  return new Date(ms).toUTCString();
}

/** `2016-09-19T18:29:47Z`, the 2017 preview's NotBefore. */
function iso8601Seconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Event types appeared with later api-versions; an older client never sees a type it cannot know. */
function visibleIn(eventType: string, v: ScheduledEventsApiVersion): boolean {
  if (eventType === "Preempt") return v >= "2017-11-01";
  if (eventType === "Terminate") return v >= "2019-01-01";
  // Microsoft: the rebalance recommendation "uses the same endpoint ... but a different version";
  // 2024-07-09 is the one OpenShift's Azure Spot mock requires (REBALANCE_API_VERSION).
  if (eventType === "SpotRebalanceRecommendation") return v >= REBALANCE_API_VERSION;
  return true;
}

export function renderEvent(e: SimEvent, v: ScheduledEventsApiVersion): ScheduledEvent {
  const started = e.phase === "Started";
  const notBefore =
    started || e.notBeforeMs === null
      ? ""
      : v === "2017-03-01"
        ? iso8601Seconds(e.notBeforeMs)
        : rfc1123(e.notBeforeMs);
  const out: Record<string, unknown> = {
    EventId: e.eventId,
    EventType: e.eventType,
    ResourceType: "VirtualMachine",
    Resources: [...e.resources],
    EventStatus: started ? "Started" : "Scheduled",
    NotBefore: notBefore,
  };
  if (v >= "2019-04-01") out.Description = e.description;
  if (v >= "2019-08-01") out.EventSource = e.eventSource;
  if (v >= "2020-07-01") out.DurationInSeconds = e.durationInSeconds;
  return out as ScheduledEvent;
}

/** The one document every VM of `group` sees at this incarnation. */
export function renderDocument(
  state: FabricState,
  group: string,
  v: ScheduledEventsApiVersion = "2020-07-01",
): ScheduledEventsDocument {
  const g = state.groups[group];
  return {
    DocumentIncarnation: g?.incarnation ?? 0,
    Events: state.active
      .filter((e) => e.group === group && visibleIn(e.eventType, v))
      .map((e) => renderEvent(e, v)),
  };
}
