import { describe, expect, it } from "vitest";
import {
  MAX_EVENTS_PER_DELIVERY,
  parseEventGridDelivery,
  parseScheduledEventId,
  SUBSCRIPTION_VALIDATION_EVENT,
} from "../../src/published";

/**
 * Event Grid deliveries of scheduled events, shaped as Azure's docs show them
 * (azure-compute-docs scheduled-events-event-grid.md; Event Grid and CloudEvents schemas; the
 * subscription validation handshake). Only the simulator has produced these here: not verified
 * against a real subscription.
 */

const SUB = "00000000-0000-4000-8000-000000000000";
const scaleSetEventId = (eventId: string) =>
  `/subscriptions/${SUB}/resourceGroups/rg-web/providers/Microsoft.Compute/virtualMachineScaleSets/web/providers/microsoft.maintenance/scheduledevents/${eventId}`;

function gridEvent(status: string, extra: Record<string, unknown> = {}) {
  const id = scaleSetEventId("3da1b9aa-5204-4335-8c33-c54e315dcffe");
  return {
    id: "6e9f8439-8bf5-48f1-805d-ad8ab7cd1951",
    topic: `/subscriptions/${SUB}`,
    subject: id,
    data: {
      resourceInfo: {
        id,
        name: "3da1b9aa-5204-4335-8c33-c54e315dcffe",
        type: "microsoft.maintenance/scheduledEvents",
        location: "eastus",
        properties: {
          DurationInSeconds: 5,
          Description:
            "Virtual machine is being paused because of a memory-preserving Live Migration operation.",
          EventId: "3da1b9aa-5204-4335-8c33-c54e315dcffe",
          EventSource: "Platform",
          EventStatus: status,
          EventType: "Freeze",
          NotBefore: status === "Scheduled" ? "Mon, 19 Sep 2025 18:29:47 GMT" : "",
          Resources: ["web_1", "web_2"],
          ResourceType: "VirtualMachine",
          ScheduledEventApiVersion: "2020-07-01",
        },
      },
      operationalInfo: { resourceEventTime: "2025-09-19T18:14:47.1032748" },
      apiVersion: "2024-07-01",
    },
    eventType: "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted",
    dataVersion: "3.0",
    metadataVersion: "1",
    eventTime: "2025-09-19T18:14:48.9584103Z",
    ...extra,
  };
}

describe("an Event Grid delivery", () => {
  it("yields the scheduled event with its scale-set scope, Azure's time of the change and the delivery's id", () => {
    const d = parseEventGridDelivery([gridEvent("Scheduled")]);
    expect(d.ok).toBe(true);
    if (!d.ok || d.value.kind !== "events") throw new Error("not events");
    const [o] = d.value.observations;
    expect(o?.scope).toEqual({
      subscriptionId: SUB,
      resourceGroup: "rg-web",
      kind: "virtualMachineScaleSets",
      name: "web",
      id: `/subscriptions/${SUB}/resourcegroups/rg-web/providers/microsoft.compute/virtualmachinescalesets/web`,
    });
    expect(o?.event.Resources).toEqual(["web_1", "web_2"]);
    expect(o?.observedAt).toBe(Date.parse("2025-09-19T18:14:47.103Z"));
    expect(o?.deliveryId).toBe("6e9f8439-8bf5-48f1-805d-ad8ab7cd1951");
    expect(o?.source).toBe("eventGrid");
  });

  it("takes Completed and Canceled, which IMDS never shows", () => {
    for (const status of ["Completed", "Canceled"]) {
      const d = parseEventGridDelivery([gridEvent(status)]);
      if (!d.ok || d.value.kind !== "events") throw new Error("not events");
      expect(d.value.observations[0]?.event.EventStatus).toBe(status);
    }
  });

  it("recognises a scheduled event by its resource, whichever of the documented event type names it carries, and in CloudEvents 1.0", () => {
    const names = [
      "Microsoft.ResourceNotifications.MaintenanceResources.ScheduledEventEmitted",
      "microsoft.maintenance/scheduledevents/write",
      "Microsoft.Maintenance.ScheduledEvents",
    ];
    for (const eventType of names) {
      const d = parseEventGridDelivery([gridEvent("Started", { eventType })]);
      if (!d.ok || d.value.kind !== "events") throw new Error("not events");
      expect(d.value.observations).toHaveLength(1);
    }
    const g = gridEvent("Started");
    const cloud = {
      specversion: "1.0",
      id: g.id,
      source: g.topic,
      type: g.eventType,
      subject: g.subject,
      time: g.eventTime,
      data: g.data,
    };
    const d = parseEventGridDelivery(cloud);
    if (!d.ok || d.value.kind !== "events") throw new Error("not events");
    expect(d.value.observations[0]?.event.EventStatus).toBe("Started");
  });

  it("counts the topic's other events (AKS planned maintenance) as ignored, and reports a scheduled event that does not parse without dropping the others", () => {
    const aks = {
      ...gridEvent("Started"),
      id: "aks-1",
      data: {
        resourceInfo: {
          id: `/subscriptions/${SUB}/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/aks/providers/microsoft.maintenance/scheduledevents/x`,
          type: "microsoft.maintenance/scheduledevents",
          properties: { eventStatus: "Started", resourceType: "ManagedCluster" },
        },
      },
    };
    const broken = gridEvent("Scheduled");
    (broken.data.resourceInfo.properties as Record<string, unknown>).Resources = "web_1";
    const d = parseEventGridDelivery([aks, broken, gridEvent("Started")]);
    if (!d.ok || d.value.kind !== "events") throw new Error("not events");
    expect(d.value.ignored).toBe(1);
    expect(d.value.rejected).toHaveLength(1);
    expect(d.value.rejected[0]).toMatchObject({ index: 1, id: broken.id });
    expect(d.value.rejected[0]?.reason).toContain("Resources");
    expect(d.value.observations).toHaveLength(1);
  });

  it("is the subscription validation handshake when it carries Event Grid's validation event", () => {
    const d = parseEventGridDelivery([
      {
        id: "2d1781af-3a4c-4d7c-bd0c-e34b19da4e66",
        topic: `/subscriptions/${SUB}`,
        subject: "",
        data: {
          validationCode: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6",
          validationUrl:
            "https://rp-eastus2.eventgrid.azure.net:553/eventsubscriptions/x/validate?id=y",
        },
        eventType: SUBSCRIPTION_VALIDATION_EVENT,
        eventTime: "2018-01-25T22:12:19.4556811Z",
        metadataVersion: "1",
        dataVersion: "1",
      },
    ]);
    expect(d).toEqual({
      ok: true,
      value: {
        kind: "validation",
        validationCode: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6",
        validationUrl:
          "https://rp-eastus2.eventgrid.azure.net:553/eventsubscriptions/x/validate?id=y",
      },
    });
  });

  it("refuses, naming what is wrong, an empty delivery and one larger than Event Grid sends", () => {
    expect(parseEventGridDelivery([])).toMatchObject({ ok: false });
    const many = Array.from({ length: MAX_EVENTS_PER_DELIVERY + 1 }, () => gridEvent("Started"));
    expect(parseEventGridDelivery(many)).toMatchObject({ ok: false });
  });

  it("rejects an event in neither schema by itself, naming it, and still returns the others of the delivery", () => {
    const good = gridEvent("Started");
    const d = parseEventGridDelivery([{ hello: "world", id: "odd-1" }, good, 42]);
    if (!d.ok || d.value.kind !== "events") throw new Error("not events");
    expect(d.value.observations.map((o) => o.deliveryId)).toEqual([good.id]);
    expect(d.value.rejected.map((r) => [r.index, r.id])).toEqual([
      [0, "odd-1"],
      [2, null],
    ]);
    expect(d.value.rejected[0]?.reason).toMatch(
      /^event 0: neither an Event Grid nor a CloudEvents 1.0 event/,
    );
  });
});

describe("a scheduled event's ARM id", () => {
  it("names its scope: a VM, a scale set or an availability set, whatever the case; nothing else", () => {
    expect(
      parseScheduledEventId(
        `/subscriptions/${SUB}/resourcegroups/RG/providers/microsoft.compute/virtualmachines/vm-1/providers/microsoft.maintenance/scheduledevents/E1`,
      ),
    ).toMatchObject({ scope: { kind: "virtualMachines", name: "vm-1" }, eventId: "E1" });
    expect(
      parseScheduledEventId(
        `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/as-1/providers/Microsoft.Maintenance/scheduledevents/E2`,
      ),
    ).toMatchObject({ scope: { kind: "availabilitySets", name: "as-1" }, eventId: "E2" });
    expect(parseScheduledEventId(`/subscriptions/${SUB}/resourceGroups/rg`)).toBeNull();
    expect(
      parseScheduledEventId(
        `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/web/virtualMachines/1/providers/microsoft.maintenance/scheduledevents/E3`,
      ),
    ).toBeNull();
  });
});
