import {
  createCoordinator,
  loadCoordinatorSettings,
  localMetrics,
  pointsNamed,
} from "@quiesce/functions";
import { REBALANCE_API_VERSION } from "@quiesce/protocol/imds";
import { EventDetail } from "@quiesce/protocol/status";
import { useAzurite } from "@quiesce/testkit/azurite";
import { AVAILABILITY_SET, scheduledEventEmitted } from "@quiesce/testkit/eventGrid";
import {
  call,
  freezeEvent,
  makeReport,
  request,
  testCoordinator,
  uniquePrefix,
} from "@quiesce/testkit/harness";
import { useSinkReceiver } from "@quiesce/testkit/notifications";
import { describe, expect, it } from "vitest";

/**
 * A Spot rebalance recommendation through the real handlers on Azurite: a relay reporting one for
 * its VM is never told to approve it, the status API shows it advisory, operators hear of it
 * once under its own kind, it is counted with its event type as advisory, and a Freeze of the
 * same VM is approved as soon as it drained, under a budget of one event in flight.
 */

const azurite = useAzurite();
const sinks = useSinkReceiver("s".repeat(40));

describe("a Spot rebalance recommendation reported by a relay", () => {
  it("gets no approve directive, shows advisory, notifies once as rebalanceRecommended, and does not hold back a Freeze of the same VM", async () => {
    const metrics = localMetrics();
    const relayKey = "r".repeat(32);
    const operatorKey = "o".repeat(32);
    const c = await createCoordinator(
      loadCoordinatorSettings({
        QUIESCE_STORAGE_CONNECTION_STRING: azurite().connectionString,
        QUIESCE_TABLE_PREFIX: uniquePrefix(),
        QUIESCE_AUTH_MODE: "sharedKey",
        QUIESCE_RELAY_KEY: relayKey,
        QUIESCE_OPERATOR_KEY: operatorKey,
        ...sinks.sinkSettings({
          default: { maxEventsInFlight: 1, notify: { sinks: ["webhook"] } },
        }),
      }),
      { clock: sinks.clock, meter: metrics.meter },
    );
    const post = (body: unknown) =>
      call(c.handlers.report, request("POST", "relay/report", { key: relayKey, body }));
    const from = sinks.receiver.received.length;
    const rebalance = freezeEvent(["web-0"], {
      EventType: "SpotRebalanceRecommendation",
      DurationInSeconds: -1,
      Description: "",
    });
    const freeze = freezeEvent(["web-0"]);

    // Its relay may drain for it (QUIESCE_REBALANCE_ACTION=hooks, or a relay of an earlier
    // release, which drains for any event): still nothing to approve.
    const first = await post(
      makeReport("web-0", { incarnation: 1, events: [rebalance], drained: [rebalance.EventId] }),
    );
    expect(first.status).toBe(200);
    expect(first.body.directives).toEqual([]);

    const detail = await call(
      c.handlers.event,
      request("GET", `events/${rebalance.EventId}`, {
        key: operatorKey,
        params: { eventId: rebalance.EventId },
      }),
    );
    expect(detail.status).toBe(200);
    const view = EventDetail.parse(detail.body);
    expect(view).toMatchObject({ advisory: true, phase: "Observed", blockers: [] });
    expect(view.approval.lease).toBeNull();
    expect(view.waitingFor).toContain(
      "advisory: Spot rebalance recommendation, nothing to approve",
    );

    // The Freeze of the same VM drains and is approved, the recommendation still in the document.
    const second = await post(
      makeReport("web-0", {
        incarnation: 2,
        events: [rebalance, freeze],
        drained: [rebalance.EventId, freeze.EventId],
        seq: 2,
      }),
    );
    expect(second.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [freeze.EventId] }),
    ]);
    sinks.clock.advance(10_000);
    await c.handlers.sweep();
    const again = await post(
      makeReport("web-0", { incarnation: 2, events: [rebalance, freeze], seq: 3 }),
    );
    expect(JSON.stringify(again.body.directives)).not.toContain(rebalance.EventId);
    await c.deps.notifier.settled();

    const messages = sinks.webhookMessages(from);
    const about = (id: string) => messages.filter((m) => m.eventId === id).map((m) => m.kind);
    expect(about(rebalance.EventId)).toEqual(["rebalanceRecommended"]);
    expect(about(freeze.EventId)).toContain("observed");

    const points = await metrics.points();
    const counted = pointsNamed(points, "quiesce.events", {
      eventType: "SpotRebalanceRecommendation",
    });
    expect(counted.map((p) => [p.attributes.outcome, p.value])).toEqual([["advisory", 1]]);
    await metrics.shutdown();
  });
});

describe("a Spot rebalance recommendation Azure publishes through Event Grid", () => {
  it("is taken in as advisory and never made due for the control plane, even with no relay to approve", async () => {
    const key = "event-grid-key-0123456789";
    const c = await testCoordinator(azurite().connectionString, {
      settings: {
        QUIESCE_CONTROL_PLANE: "true",
        QUIESCE_CONTROL_PLANE_EVENTS: "true",
        QUIESCE_EVENT_GRID_KEY: key,
        QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "0",
        QUIESCE_POLICY: JSON.stringify({
          clusters: {
            appliances: {
              azureResources: [AVAILABILITY_SET],
              controlPlaneApproval: { mode: "fallback", afterSeconds: 0 },
            },
          },
        }),
      },
    });
    const eventId = "6a1c3e5f-0d39-4c2b-a0a4-1f1fb2b25f6e";
    const delivery = scheduledEventEmitted({
      eventId,
      status: "Scheduled",
      properties: {
        EventId: eventId,
        EventType: "SpotRebalanceRecommendation",
        ResourceType: "VirtualMachine",
        Resources: ["app-0"],
        EventStatus: "Scheduled",
        NotBefore: "Mon, 23 Nov 2026 05:15:00 GMT",
        Description: "",
        EventSource: "Platform",
        DurationInSeconds: -1,
        ScheduledEventApiVersion: REBALANCE_API_VERSION,
      },
    });
    const posted = await call(
      c.handlers.eventGrid,
      request("POST", `maintenance/eventgrid?code=${key}`, { body: [delivery] }),
    );
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ applied: 1, clusters: ["appliances"] });
    // Long past the control plane's wait, and past NotBefore: nothing was due.
    c.clock.advance(30 * 60_000);
    await c.handlers.sweep();
    await c.deps.controlPlane.settle();
    const e = await call(
      c.handlers.event,
      request("GET", `events/${eventId}?cluster=appliances`, {
        key: c.operatorKey,
        params: { eventId },
      }),
    );
    expect(e.status).toBe(200);
    const view = EventDetail.parse(e.body);
    expect(view).toMatchObject({
      advisory: true,
      phase: "Observed",
      firstSeenBy: "Event Grid",
      blockers: [],
      approval: { lease: null, approvedAt: null, controlPlane: null },
    });
  });
});
