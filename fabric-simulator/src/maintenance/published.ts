import { rfc1123 } from "../model/document";
import type { FabricState, SimEvent } from "../model/types";
import { availabilitySetId, scaleSetId } from "../topology/armIds";

/**
 * What Azure publishes of the fabric's scheduled events off the VM, once a group opted in
 * (`scheduledEventsPolicy.scheduledEventsAdditionalPublishingTargets.eventGridAndResourceGraph`):
 * the `microsoft.maintenance/scheduledevents` resource an Event Grid system topic
 * (`Microsoft.ResourceNotifications.MaintenanceResources`) delivers and Resource Graph's
 * `maintenanceresources` table holds. Shapes from azure-compute-docs
 * `scheduled-events-event-grid.md` and `scheduled-events-resource-graph.md` (05/01/2026): the event's
 * id is scoped to its availability set, its scale set (not the instance) or its VM; `EventStatus`
 * adds `Completed` and `Canceled`; `ScheduledEventApiVersion` is 2020-07-01 during the preview.
 */

export const SCHEDULED_EVENT_TYPE = "microsoft.maintenance/scheduledevents";
export const EVENT_GRID_EVENT_TYPE =
  "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted";

/** The ARM resource a group's events are published for, or null for a group Azure would not publish. */
export function publishedScopeId(state: FabricState, group: string): string | null {
  const g = state.groups[group];
  const t = state.topology;
  if (!g) return null;
  if (g.kind === "availabilitySet") return availabilitySetId(t, g.name);
  if (g.scaleSetName !== undefined) return scaleSetId(t, g.scaleSetName);
  const vm = g.vms[0] ? state.vms[g.vms[0]] : undefined;
  return vm?.resourceId ?? null;
}

/** The event's status as the control plane shows it, terminal states included. */
export function publishedStatus(e: SimEvent): "Scheduled" | "Started" | "Completed" | "Canceled" {
  if (e.phase === "Scheduled") return "Scheduled";
  if (e.phase === "Started") return "Started";
  return e.removalCause === "cancelled" ? "Canceled" : "Completed";
}

export interface MaintenanceResource {
  id: string;
  name: string;
  type: string;
  location: string;
  properties: Record<string, unknown>;
}

export function maintenanceResource(state: FabricState, e: SimEvent): MaintenanceResource | null {
  const scope = publishedScopeId(state, e.group);
  if (!scope) return null;
  const status = publishedStatus(e);
  return {
    id: `${scope}/providers/microsoft.maintenance/scheduledevents/${e.eventId}`,
    name: e.eventId,
    type: SCHEDULED_EVENT_TYPE,
    location: state.topology.location,
    properties: {
      DurationInSeconds: e.durationInSeconds,
      Description: e.description,
      EventId: e.eventId,
      EventSource: e.eventSource,
      EventStatus: status,
      EventType: e.eventType,
      NotBefore: status === "Scheduled" && e.notBeforeMs !== null ? rfc1123(e.notBeforeMs) : "",
      Resources: [...e.resources],
      ResourceType: "VirtualMachine",
      ScheduledEventApiVersion: "2020-07-01",
    },
  };
}

/** Simulated ms of the event's latest change: removal, start, or scheduling. */
export function changedAtMs(e: SimEvent): number {
  return (e.removedAt ?? e.startedAt ?? e.scheduledAt).simMs;
}

/**
 * The Event Grid schema event a system topic subscription delivers for the event's state, as of
 * `atMs` (simulated; its latest change when absent: a publisher replaying each change passes the
 * change's own instant).
 */
export function eventGridEvent(
  state: FabricState,
  e: SimEvent,
  deliveryId: string,
  atMs: number = changedAtMs(e),
): Record<string, unknown> | null {
  const resource = maintenanceResource(state, e);
  if (!resource) return null;
  const at = new Date(atMs).toISOString();
  return {
    id: deliveryId,
    topic: `/subscriptions/${state.topology.subscriptionId}`,
    subject: resource.id,
    data: {
      resourceInfo: { ...resource, tags: {} },
      operationalInfo: { resourceEventTime: at },
      apiVersion: "2024-07-01",
    },
    eventType: EVENT_GRID_EVENT_TYPE,
    dataVersion: "3.0",
    metadataVersion: "1",
    eventTime: at,
  };
}

/** Every event the fabric has had, as Resource Graph's `maintenanceresources` rows. */
export function resourceGraphRows(state: FabricState): MaintenanceResource[] {
  return [...state.past, ...state.active].flatMap((e) => maintenanceResource(state, e) ?? []);
}
