import type { PublishedEventStatus, PublishedObservation } from "@quiesce/protocol/published";
import { parseScheduledEventId } from "@quiesce/protocol/published";

/** An availability set's scope, as Event Grid and Resource Graph spell the events published for it. */
export const AS_SCOPE =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/web";

export const PUBLISHED_ID = "9F3A1C2E-5B6D-4E7F-8A9B-0C1D2E3F4A5B";

/** An event as Azure publishes it off the VM (Event Grid), for the core's and intake's tests. */
export function published(
  status: PublishedEventStatus,
  resources: string[],
  opts: {
    observedAt?: number;
    eventId?: string;
    notBefore?: string;
    eventType?: string;
    eventSource?: string;
    scope?: string;
  } = {},
): PublishedObservation {
  const eventId = opts.eventId ?? PUBLISHED_ID;
  const located = parseScheduledEventId(
    `${opts.scope ?? AS_SCOPE}/providers/microsoft.maintenance/scheduledevents/${eventId.toLowerCase()}`,
  );
  if (!located) throw new Error("bad scope");
  return {
    source: "eventGrid",
    scope: located.scope,
    event: {
      EventId: eventId.toLowerCase(),
      EventType: opts.eventType ?? "Freeze",
      ResourceType: "VirtualMachine",
      Resources: resources,
      EventStatus: status,
      NotBefore: status === "Scheduled" ? (opts.notBefore ?? "Mon, 11 Apr 2022 22:15:00 GMT") : "",
      EventSource: opts.eventSource ?? "Platform",
      DurationInSeconds: 5,
      Description: "Host update",
    },
    observedAt: opts.observedAt ?? null,
    deliveryId: null,
  };
}
