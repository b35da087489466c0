import { z } from "zod";
import { ScheduledEvent } from "../imds/scheduledEvents";

/**
 * A published event: a scheduled event as Azure publishes it off the VM, to Event Grid and Azure
 * Resource Graph (both preview, opt-in through
 * `scheduledEventsPolicy.scheduledEventsAdditionalPublishingTargets`; docs/control-plane.md,
 * "Published events"). The same fields as IMDS serves (`ScheduledEventApiVersion` 2020-07-01, the
 * only one during the preview), with two statuses IMDS never shows: `Completed` and `Canceled`
 * ("Event Grid and ARG only", azure-compute-docs scheduled-events-event-grid.md).
 */
export const PublishedEventStatus = z.enum(["Scheduled", "Started", "Completed", "Canceled"]);
export type PublishedEventStatus = z.infer<typeof PublishedEventStatus>;

export const PublishedScheduledEvent = ScheduledEvent.extend({
  EventStatus: PublishedEventStatus,
  ScheduledEventApiVersion: z.string().max(32).optional(),
});
export type PublishedScheduledEvent = z.infer<typeof PublishedScheduledEvent>;

/** The ARM resource an event is published for: a VM, a scale set (not the instance) or an availability set. */
export interface EventScope {
  subscriptionId: string;
  resourceGroup: string;
  kind: "virtualMachines" | "virtualMachineScaleSets" | "availabilitySets";
  name: string;
  /** The scope's ARM id, lower case (ARM compares ids without regard to case). */
  id: string;
}

const KINDS = {
  virtualmachines: "virtualMachines",
  virtualmachinescalesets: "virtualMachineScaleSets",
  availabilitysets: "availabilitySets",
} as const;

const SCOPED_ID =
  /^\/subscriptions\/([^/]+)\/resourcegroups\/([^/]+)\/providers\/microsoft\.compute\/(virtualmachines|virtualmachinescalesets|availabilitysets)\/([^/]+)\/providers\/microsoft\.maintenance\/scheduledevents\/([^/]+)$/i;

/**
 * The scope and event id in `…/providers/Microsoft.Compute/{kind}/{name}/providers/
 * microsoft.maintenance/scheduledevents/{eventId}` (Event Grid's `subject` and
 * `data.resourceInfo.id`, Resource Graph's `id`), or null for any other shape.
 */
export function parseScheduledEventId(id: string): { scope: EventScope; eventId: string } | null {
  const m = SCOPED_ID.exec(id.trim());
  if (!m) return null;
  const [, subscriptionId, resourceGroup, kind, name, eventId] = m as unknown as string[];
  const k = KINDS[(kind as string).toLowerCase() as keyof typeof KINDS];
  const scopeId =
    `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Compute/${k}/${name}`.toLowerCase();
  return {
    scope: {
      subscriptionId: subscriptionId as string,
      resourceGroup: resourceGroup as string,
      kind: k,
      name: name as string,
      id: scopeId,
    },
    eventId: eventId as string,
  };
}

/** What the type says of a resource: a scheduled event, whatever the case (the docs use both). */
export const isScheduledEventType = (type: string): boolean =>
  type.toLowerCase() === "microsoft.maintenance/scheduledevents";

/**
 * One observation of a published event, whichever channel brought it (Event Grid or Resource
 * Graph): what the coordinator's core takes (`source` says which; `observedAt` is Azure's time of
 * the change when the channel gives one, so reordered deliveries can be told apart).
 */
export interface PublishedObservation {
  source: "eventGrid" | "resourceGraph";
  scope: EventScope;
  event: PublishedScheduledEvent;
  /** Epoch ms of the change at Azure (Event Grid's resourceEventTime or eventTime), if known. */
  observedAt: number | null;
  /** The channel's own id for this delivery (Event Grid's `id`), to recognise duplicates. */
  deliveryId: string | null;
}
