import { useAzurite } from "@quiesce/testkit/azurite";
import {
  AVAILABILITY_SET as AS,
  SUBSCRIPTION as SUB,
  scheduledEventEmitted,
} from "@quiesce/testkit/eventGrid";
import {
  call,
  context,
  freezeEvent,
  makeReport,
  postReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

/**
 * Event Grid's webhook into the coordinator (handlers/eventGrid.ts, published/intake.ts)
 * through the real handler and Azurite: the subscription handshake, its key, bad bodies changing
 * nothing, and each delivery landing in the cluster the event belongs to.
 */
const azurite = useAzurite();
const KEY = "event-grid-key-0123456789";
const EVENT_ID = "5d4b8a43-0d39-4c2b-a0a4-1f1fb2b25f6e";

function delivery(
  status: string,
  resources: string[],
  opts: { scope?: string; eventId?: string; id?: string } = {},
) {
  const eventId = opts.eventId ?? EVENT_ID;
  return [
    scheduledEventEmitted({
      eventId,
      status,
      resources,
      ...(opts.scope ? { scope: opts.scope } : {}),
      id: opts.id ?? `delivery-${status}`,
    }),
  ];
}

const policy = {
  clusters: { appliances: { azureResources: [AS] }, web: {} },
};

async function coordinator(extra: Record<string, string> = {}): Promise<TestCoordinator> {
  return testCoordinator(azurite().connectionString, {
    settings: {
      QUIESCE_CONTROL_PLANE: "true",
      QUIESCE_CONTROL_PLANE_EVENTS: "true",
      QUIESCE_EVENT_GRID_KEY: KEY,
      QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "0",
      QUIESCE_POLICY: JSON.stringify(policy),
      ...extra,
    },
  });
}

const post = (c: TestCoordinator, body: unknown, code = KEY) =>
  call(c.handlers.eventGrid, request("POST", `maintenance/eventgrid?code=${code}`, { body }));
const raw = (c: TestCoordinator, text: string) =>
  call(c.handlers.eventGrid, request("POST", `maintenance/eventgrid?code=${KEY}`, { raw: text }));
const eventIn = async (c: TestCoordinator, cluster: string, id = EVENT_ID) =>
  call(
    c.handlers.event,
    request("GET", `events/${id}?cluster=${cluster}`, {
      key: c.operatorKey,
      params: { eventId: id },
    }),
  );

describe("Event Grid webhook", () => {
  it("answers the subscription validation handshake, and refuses a missing or wrong key", async () => {
    const c = await coordinator();
    const handshake = [
      {
        id: "v1",
        topic: `/subscriptions/${SUB}`,
        subject: "",
        eventType: "Microsoft.EventGrid.SubscriptionValidationEvent",
        eventTime: "2026-11-23T05:00:00Z",
        data: {
          validationCode: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6",
          validationUrl: "https://x",
        },
        dataVersion: "1",
      },
    ];
    const ok = await post(c, handshake);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ validationResponse: "512d38b6-c7b8-40c8-89fe-f46f9e9622b6" });
    expect((await post(c, handshake, "wrong-key-0123456789")).status).toBe(401);
    expect((await post(c, handshake, "")).status).toBe(401);
  });

  it("is off (404) unless QUIESCE_CONTROL_PLANE_EVENTS is set", async () => {
    const c = await coordinator({ QUIESCE_CONTROL_PLANE_EVENTS: "false" });
    expect((await post(c, delivery("Scheduled", ["app-0"]))).status).toBe(404);
  });

  it("refuses a malformed body with a 400 that names the problem, and writes nothing", async () => {
    const c = await coordinator();
    const notJson = await raw(c, "{not json");
    expect(notJson.status).toBe(400);
    const noSubject = await post(c, [{ id: "x", eventType: "t", eventTime: "now", data: {} }]);
    expect(noSubject.status).toBe(400);
    expect(noSubject.body.error).toMatch(/event 0/);
    expect((await eventIn(c, "appliances")).status).toBe(404);
  });

  it("puts an event in the cluster whose azureResources name its scope, once however often it is delivered", async () => {
    const c = await coordinator();
    const first = await post(c, delivery("Scheduled", ["app-0", "app-1"]));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ applied: 1, clusters: ["appliances"] });
    const again = await post(c, delivery("Scheduled", ["app-0", "app-1"]));
    expect(again.body).toMatchObject({ applied: 0, unchanged: 1 });
    const e = await eventIn(c, "appliances");
    expect(e.status).toBe(200);
    expect(e.body).toMatchObject({
      firstSeenBy: "Event Grid",
      resources: ["app-0", "app-1"],
      published: { status: "Scheduled", source: "eventGrid" },
    });
    expect(e.body.blockers.map((b: { reason: string }) => b.reason)).toEqual([
      "neverRegistered",
      "neverRegistered",
    ]);
  });

  it("reconciles with the cluster whose relays reported the event first, ids compared without case", async () => {
    const c = await coordinator();
    const ev = freezeEvent(["web-0", "web-1"], { EventId: EVENT_ID.toUpperCase() });
    expect(
      (await postReport(c, makeReport("web-0", { cluster: "web", incarnation: 1, events: [ev] })))
        .status,
    ).toBe(200);
    const other = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/web`;
    const res = await post(c, delivery("Scheduled", ["web-0"], { scope: other }));
    expect(res.body).toMatchObject({ applied: 1, clusters: ["web"] });
    const e = await eventIn(c, "web");
    expect(e.body.resources).toEqual(["web-0", "web-1"]); // never shrunk by the published view
    expect(e.body.firstSeenBy).toBe("web-0");
    const done = await post(c, delivery("Completed", ["web-0"], { scope: other }));
    expect(done.body).toMatchObject({ applied: 1 });
    expect((await eventIn(c, "web")).body.published.status).toBe("Completed");
  });

  it("keeps an event no cluster owns in the unclaimed cluster, or drops it when that is turned off", async () => {
    const c = await coordinator();
    const stray = `/subscriptions/${SUB}/resourceGroups/other/providers/Microsoft.Compute/virtualMachines/lonely`;
    const res = await post(c, delivery("Scheduled", ["lonely"], { scope: stray }));
    expect(res.body).toMatchObject({ applied: 1, unclaimed: 1, clusters: ["unclaimed"] });
    expect((await eventIn(c, "unclaimed")).body.resources).toEqual(["lonely"]);

    const off = await coordinator({ QUIESCE_UNCLAIMED_CLUSTER: "off" });
    const dropped = await post(off, delivery("Scheduled", ["lonely"], { scope: stray }));
    expect(dropped.body).toMatchObject({ applied: 0, unclaimed: 1, clusters: [] });
  });

  it("never approves in the unclaimed cluster, whatever the default policy, and hands an event over once a relay's cluster holds it", async () => {
    const c = await coordinator({
      QUIESCE_POLICY: JSON.stringify({
        default: {
          autoApprove: [{ name: "all", eventTypes: ["Freeze"] }],
          controlPlaneApproval: { mode: "fallback", afterSeconds: 0 },
        },
        clusters: { web: {} },
      }),
    });
    const other = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/web`;
    // Delivered before any relay of the group registered: unclaimed, and left alone there.
    expect((await post(c, delivery("Scheduled", ["web-0"], { scope: other }))).body).toMatchObject({
      clusters: ["unclaimed"],
    });
    await c.handlers.sweep();
    const held = await eventIn(c, "unclaimed");
    expect(held.body.phase).not.toBe("Approving");
    expect(held.body.approval).toMatchObject({ lease: null, approvedAt: null });
    // The relay reports it into its own cluster; the next delivery moves it there for good.
    const ev = freezeEvent(["web-0"], { EventId: EVENT_ID });
    await postReport(c, makeReport("web-0", { cluster: "web", incarnation: 1, events: [ev] }));
    expect((await post(c, delivery("Started", ["web-0"], { scope: other }))).body).toMatchObject({
      clusters: ["web"],
    });
    expect((await eventIn(c, "unclaimed")).status).toBe(404);
  });

  it("reads the delivered event's rows, never every member nor the cluster's other events: a delivery to a cluster of 40 relays busy with another event", async () => {
    const WEB = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/web`;
    const c = await coordinator({
      QUIESCE_POLICY: JSON.stringify({ clusters: { web: { azureResources: [WEB] } } }),
    });
    const vms = Array.from({ length: 40 }, (_, i) => `web-${i}`);
    const busy = freezeEvent(vms.slice(2), { EventId: "0b0a6c4e-7d1e-4d4f-9a53-2b8f1d0c9e11" });
    for (const vm of vms)
      await postReport(c, makeReport(vm, { incarnation: 1, events: vm < "web-2" ? [] : [busy] }));
    expect(
      (await post(c, delivery("Scheduled", ["web-0", "web-1"], { scope: WEB }))).body,
    ).toMatchObject({
      applied: 1,
      clusters: ["web"],
    });
    await c.deps.controlPlane.settle();
    const before = c.deps.store.stats();
    const started = await post(c, delivery("Started", ["web-0", "web-1"], { scope: WEB }));
    expect(started.body).toMatchObject({ applied: 1, clusters: ["web"] });
    await c.deps.controlPlane.settle(); // the follow-up reads the same rows again
    const after = c.deps.store.stats();
    // The clusters holding the event (its index partition, a query, and its row, a point read),
    // then two reads of it (the decision, then the follow-up), each: the event row and the two
    // named members (point reads) and the event's readiness (a query). Every member would be 40
    // rows more, the other event's 38 readiness rows, and the events partition every event kept.
    expect({ reads: after.reads - before.reads, queries: after.queries - before.queries }).toEqual({
      reads: 7,
      queries: 3,
    });
  });

  it("takes one event per invocation through the Functions Event Grid trigger, and fails the invocation for what it cannot use (Event Grid retries, then dead-letters it)", async () => {
    const c = await coordinator();
    await c.handlers.eventGridTrigger(delivery("Scheduled", ["app-0"])[0], context());
    expect((await eventIn(c, "appliances")).body).toMatchObject({ firstSeenBy: "Event Grid" });
    await expect(c.handlers.eventGridTrigger({ nope: 1 }, context())).rejects.toThrow(/not used/);
  });
});
