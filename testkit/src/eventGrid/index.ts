/**
 * Event Grid events of the `Microsoft.ResourceNotifications.MaintenanceResources` system topic,
 * shaped as Microsoft's sample (test/contracts/fixtures/event-grid/
 * MaintenanceResources_ScheduledEventEmitted.event-grid-schema.json), for the tests and
 * benchmarks that deliver them to the coordinator: one scheduled event's change each.
 */
export const SUBSCRIPTION = "00000000-0000-0000-0000-000000000000";
/** The availability set the events are scoped to unless told otherwise. */
export const AVAILABILITY_SET = `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/appliances`;

export interface ScheduledEventEmitted {
  eventId: string;
  status: string;
  resources?: readonly string[];
  /** The resource the event is scoped to: an availability set, a scale set, a VM. */
  scope?: string;
  /** The Event Grid event's own id (deduplication is by it): one per event and status unless set. */
  id?: string;
  /** The scheduled event's properties as the topic sends them, in place of a Freeze's. */
  properties?: unknown;
}

/** One Event Grid schema event: the change of one scheduled event, as Azure publishes it. */
export function scheduledEventEmitted(e: ScheduledEventEmitted) {
  const scope = e.scope ?? AVAILABILITY_SET;
  const id = `${scope}/providers/microsoft.maintenance/scheduledevents/${e.eventId.toLowerCase()}`;
  return {
    id: e.id ?? `delivery-${e.eventId}-${e.status}`,
    topic: `/subscriptions/${SUBSCRIPTION}`,
    subject: id,
    eventType: "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted",
    eventTime: "2026-11-23T05:00:00Z",
    dataVersion: "3.0",
    metadataVersion: "1",
    data: {
      resourceInfo: {
        id,
        name: e.eventId,
        type: "microsoft.maintenance/scheduledevents",
        properties: e.properties ?? {
          EventId: e.eventId,
          EventType: "Freeze",
          ResourceType: "VirtualMachine",
          Resources: e.resources ?? [],
          EventStatus: e.status,
          NotBefore: e.status === "Scheduled" ? "Mon, 23 Nov 2026 05:15:00 GMT" : "",
          Description: "Host update",
          EventSource: "Platform",
          DurationInSeconds: 5,
          ScheduledEventApiVersion: "2020-07-01",
        },
      },
      operationalInfo: { resourceEventTime: "2026-11-23T05:00:00Z" },
      apiVersion: "2024-07-01",
    },
  };
}
