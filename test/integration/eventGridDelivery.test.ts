import { randomUUID } from "node:crypto";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { type LocalCoordinator, startLocalCoordinator } from "@quiesce/functions";
import { MAX_DELIVERY_BYTES } from "@quiesce/protocol/published";
import { type AzuriteHandle, startTestAzurite } from "@quiesce/testkit/azurite";
import {
  AVAILABILITY_SET as AS,
  SUBSCRIPTION as SUB,
  scheduledEventEmitted,
} from "@quiesce/testkit/eventGrid";
import { context, uniquePrefix } from "@quiesce/testkit/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Event Grid's delivery protocol against the local host over real sockets (handlers/eventGrid.ts,
 * local/server.ts): bodies as large as Event Grid sends, the CloudEvents OPTIONS handshake, and
 * no event lost without a trace when part of a delivery cannot be used (docs/control-plane.md,
 * "Delivery protocol").
 */
const KEY = "event-grid-key-0123456789";
const AKS = `/subscriptions/${SUB}/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/aks`;

let azurite: AzuriteHandle;
let local: LocalCoordinator;
const reader = new PeriodicExportingMetricReader({
  exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
  exportIntervalMillis: 3_600_000,
});
beforeAll(async () => {
  azurite = await startTestAzurite();
  local = await startLocalCoordinator({
    connectionString: azurite.connectionString,
    meter: new MeterProvider({ readers: [reader] }).getMeter("test"),
    settings: {
      QUIESCE_TABLE_PREFIX: uniquePrefix(),
      QUIESCE_CONTROL_PLANE: "true",
      QUIESCE_CONTROL_PLANE_EVENTS: "true",
      QUIESCE_EVENT_GRID_KEY: KEY,
      QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "0",
      QUIESCE_POLICY: JSON.stringify({ clusters: { appliances: { azureResources: [AS] } } }),
    },
    sweepIntervalMs: 0,
  });
});
afterAll(async () => {
  await local?.stop();
  await azurite?.stop();
});

function properties(eventId: string, status = "Scheduled") {
  return {
    EventId: eventId,
    EventType: "Freeze",
    ResourceType: "VirtualMachine",
    Resources: ["app-0"],
    EventStatus: status,
    NotBefore: "Mon, 23 Nov 2026 05:15:00 GMT",
    Description: "Host update",
    EventSource: "Platform",
    DurationInSeconds: 5,
  };
}

/** One Event Grid schema event for `scope` (a maintenance resource of it). */
function gridEvent(eventId: string, scope = AS, props: unknown = properties(eventId)) {
  return scheduledEventEmitted({
    eventId,
    status: "Scheduled",
    scope,
    id: randomUUID(),
    properties: props,
  });
}

const url = (code = KEY) => `${local.url}/api/maintenance/eventgrid?code=${code}`;
const deliver = (body: unknown, contentType = "application/json", code = KEY) =>
  fetch(url(code), {
    method: "POST",
    headers: { "content-type": contentType, "aeg-event-type": "Notification" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const eventIn = (id: string, cluster = "appliances") =>
  fetch(`${local.url}/api/events/${id}?cluster=${cluster}`, {
    headers: { authorization: `Bearer ${local.operatorKey}` },
  });

async function rejectedCount(channel: string): Promise<number> {
  const { resourceMetrics } = await reader.collect();
  let n = 0;
  for (const scope of resourceMetrics.scopeMetrics)
    for (const m of scope.metrics)
      if (m.descriptor.name === "quiesce.eventgrid.rejected")
        for (const p of m.dataPoints) if (p.attributes.channel === channel) n += p.value as number;
  return n;
}

describe("Event Grid delivery size", () => {
  it("accepts a batch as large as Event Grid sends (about 1 MB, far over the relay report limit), on the local host and in the handler", async () => {
    const wanted = randomUUID();
    // AKS events of the same topic pad the batch: counted as ignored, as Event Grid sends them.
    const padding = Array.from({ length: 400 }, (_, i) => ({
      ...gridEvent(`aks-${i}`, AKS, { eventStatus: "Started", note: "x".repeat(2_400) }),
    }));
    const body = JSON.stringify([gridEvent(wanted), ...padding]);
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(body.length).toBeLessThan(MAX_DELIVERY_BYTES);
    const res = await deliver(body);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ applied: 1, ignored: 400, clusters: ["appliances"] });
    expect((await eventIn(wanted)).status).toBe(200);
  });

  it("still refuses (413) a body past Event Grid's own limits, and reads nothing of it into the state", async () => {
    const res = await deliver(`[${" ".repeat(MAX_DELIVERY_BYTES)}]`);
    expect(res.status).toBe(413);
  });
});

describe("CloudEvents 1.0 deliveries", () => {
  it("consents to the OPTIONS abuse-protection handshake with the key, naming the origin, and gives no consent without it", async () => {
    const ok = await fetch(url(), {
      method: "OPTIONS",
      headers: { "WebHook-Request-Origin": "eventgrid.azure.net", "WebHook-Request-Rate": "120" },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("webhook-allowed-origin")).toBe("eventgrid.azure.net");
    expect(ok.headers.get("webhook-allowed-rate")).toBe("*");
    expect(ok.headers.get("allow")).toContain("POST");
    for (const res of [
      await fetch(url("wrong-key-0123456789"), {
        method: "OPTIONS",
        headers: { "WebHook-Request-Origin": "eventgrid.azure.net" },
      }),
      await fetch(url(), { method: "OPTIONS" }),
      await fetch(url(), { method: "OPTIONS", headers: { "WebHook-Request-Origin": "a b/c" } }),
    ]) {
      expect([400, 401]).toContain(res.status);
      expect(res.headers.get("webhook-allowed-origin")).toBeNull();
    }
  });

  it("applies a structured CloudEvent and a CloudEvents batch", async () => {
    const [one, two] = [randomUUID(), randomUUID()];
    const cloud = (eventId: string) => {
      const e = gridEvent(eventId);
      return {
        specversion: "1.0",
        id: e.id,
        source: e.topic,
        subject: e.subject,
        type: e.eventType,
        time: e.eventTime,
        data: e.data,
      };
    };
    const single = await deliver(cloud(one), "application/cloudevents+json; charset=utf-8");
    expect(single.status).toBe(200);
    const batch = await deliver([cloud(two)], "application/cloudevents-batch+json; charset=utf-8");
    expect(batch.status).toBe(200);
    expect((await eventIn(one)).status).toBe(200);
    expect((await eventIn(two)).status).toBe(200);
  });
});

describe("events that cannot be used", () => {
  it("applies the good events of a delivery, answers 400 so Event Grid dead-letters the delivery, names the bad ones and counts them", async () => {
    const before = await rejectedCount("webhook");
    const good = randomUUID();
    const badProps = gridEvent(randomUUID(), AS, { ...properties("x"), Resources: "app-0" });
    const res = await deliver([{ hello: "world", id: "not-an-event" }, gridEvent(good), badProps]);
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      applied: number;
      rejected: { index: number; id: string }[];
    };
    expect(body.applied).toBe(1);
    expect(body.rejected.map((r) => [r.index, r.id])).toEqual([
      [0, "not-an-event"],
      [2, badProps.id],
    ]);
    expect((await eventIn(good)).status).toBe(200);
    expect((await rejectedCount("webhook")) - before).toBe(2);
    // The dead-lettered delivery applied again (or Event Grid's own retry) changes nothing.
    const again = await deliver([gridEvent(good)]);
    expect(await again.json()).toMatchObject({ applied: 0, unchanged: 1 });
  });

  it("fails the Functions trigger's invocation for an event it cannot use, so Event Grid retries or dead-letters it, and counts it", async () => {
    const before = await rejectedCount("trigger");
    const bad = gridEvent(randomUUID(), AS, { ...properties("y"), EventStatus: "Sideways" });
    await expect(local.coordinator.handlers.eventGridTrigger(bad, context())).rejects.toThrow(
      /EventStatus/,
    );
    await expect(
      local.coordinator.handlers.eventGridTrigger({ nope: 1 }, context()),
    ).rejects.toThrow(/neither an Event Grid nor a CloudEvents/);
    expect((await rejectedCount("trigger")) - before).toBe(2);
    const good = randomUUID();
    await local.coordinator.handlers.eventGridTrigger(gridEvent(good), context());
    expect((await eventIn(good)).status).toBe(200);
  });
});
