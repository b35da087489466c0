import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  approve,
  type FabricSimulator,
  ManualClock,
  type ReceivedRequest,
  startFabricSimulator,
  startWebhookReceiver,
  verdict,
  type WebhookReceiver,
} from "@quiesce/fabric-simulator";
import { parseEventGridDelivery } from "@quiesce/protocol/published";
import { call, request } from "@quiesce/testkit/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HandlerDeps } from "../../functions/src/handlers/deps";
import { eventGridWebhookHandler } from "../../functions/src/handlers/eventGrid";

/**
 * Event Grid's contract, from Microsoft's and CloudEvents' own published artifacts
 * (fixtures/event-grid/SOURCES.md), held against BOTH the product's intake (the parser and the
 * webhook handler) and the fabric simulator's Event Grid publisher, so the two cannot drift
 * together: the validation event and its answer, the scheduled-event samples in both schemas,
 * the topic's other (AKS) events, the CloudEvents OPTIONS handshake, the webhook headers and
 * what each answer status means to Event Grid.
 */

const dir = join(__dirname, "fixtures", "event-grid");
const text = (name: string) => readFileSync(join(dir, name), "utf8");
// biome-ignore lint/suspicious/noExplicitAny: fixtures are inspected field by field
const json = (name: string): any => JSON.parse(text(name));

const validationEvent = json("subscription-validation-event.json");
const validationResponse = json("subscription-validation-response.json");
const gridSample = json("MaintenanceResources_ScheduledEventEmitted.event-grid-schema.json");
const cloudSample = json("MaintenanceResources_ScheduledEventEmitted.cloud-events-schema.json");
const computeSample = json("scheduled-events-event-grid.sample.json");
const aksSample = json(
  "ContainerServiceEventResources_ScheduledEventEmitted.event-grid-schema.json",
);
const swagger = json("ResourceNotifications.common.json");

/** `Name: value` lines of the CloudEvents spec's ```text examples. */
const specHeaders = [
  ...text("cloudevents-webhook-validation.excerpt.md").matchAll(/^([\w-]+): (.+)$/gm),
].map((m) => [m[1] as string, m[2] as string] as const);
const headerTable = text("webhook-message-headers.excerpt.md");
const documentedHeaders = [...headerTable.matchAll(/^\| (aeg-[a-z-]+) \|/gm)].map((m) => m[1]);
const documentedEventTypes = [
  ...(/\| aeg-event-type \|.*$/m.exec(headerTable)?.[0] ?? "").matchAll(/<li>(\w+)<\/li>/g),
].map((m) => m[1]);
const statusText = text("delivery-status-codes.excerpt.md");

const KEY = "contract-key-0123456789";
const deps = {
  options: { controlPlaneEvents: { enabled: true, eventGridKey: KEY } },
} as unknown as HandlerDeps;
const webhook = eventGridWebhookHandler(deps, () => {
  throw new Error("no scheduled event in this delivery");
});

describe("the product's intake against Microsoft's samples", () => {
  it("answers the documented subscription validation event with the documented response", async () => {
    expect(parseEventGridDelivery(validationEvent)).toMatchObject({
      ok: true,
      value: { kind: "validation", validationCode: validationEvent[0].data.validationCode },
    });
    const res = await call(
      webhook,
      request("POST", `maintenance/eventgrid?code=${KEY}`, {
        body: validationEvent,
        headers: { "aeg-event-type": "SubscriptionValidation" },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual(validationResponse);
  });

  it("reads the ScheduledEventEmitted samples (Event Grid schema, CloudEvents schema, the compute docs' payload) as the same scale-set event", () => {
    for (const sample of [gridSample, [cloudSample], [computeSample]]) {
      const d = parseEventGridDelivery(sample);
      if (!d.ok || d.value.kind !== "events") throw new Error(`not events: ${JSON.stringify(d)}`);
      expect(d.value.rejected).toEqual([]);
      expect(d.value.observations).toHaveLength(1);
      expect(d.value.observations[0]).toMatchObject({
        source: "eventGrid",
        scope: { kind: "virtualMachineScaleSets", name: "{vmss-name}" },
        event: {
          EventId: "3da1b9aa-5204-4335-8c33-c54e315dcffe",
          EventStatus: "Started",
          Resources: ["myvmss_1", "myvmss_2"],
        },
      });
    }
  });

  it("counts the same topic's AKS scheduled event as ignored, neither applied nor rejected", () => {
    expect(parseEventGridDelivery([aksSample])).toMatchObject({
      ok: true,
      value: { kind: "events", observations: [], ignored: 1, rejected: [] },
    });
  });

  it("consents to the CloudEvents OPTIONS handshake as the spec's examples show it", async () => {
    const asked = Object.fromEntries(specHeaders.filter(([n]) => n.startsWith("WebHook-Request")));
    expect(Object.keys(asked)).toEqual(["WebHook-Request-Origin", "WebHook-Request-Rate"]);
    const res = await call(
      webhook,
      request("OPTIONS", `maintenance/eventgrid?code=${KEY}`, { headers: asked }),
    );
    expect(res.status).toBe(200);
    // The spec's allowed values: the requested origin (or *), and a rate as a number or *.
    const allowedOrigins = specHeaders
      .filter(([n]) => n === "WebHook-Allowed-Origin")
      .map(([, v]) => v);
    expect(allowedOrigins).toEqual([asked["WebHook-Request-Origin"], "*"]);
    expect(allowedOrigins).toContain(res.headers.get("WebHook-Allowed-Origin"));
    const rate = specHeaders.find(([n]) => n === "WebHook-Allowed-Rate")?.[1];
    expect(rate).toMatch(/^[1-9]\d*$/);
    expect(res.headers.get("WebHook-Allowed-Rate")).toMatch(/^(\*|[1-9]\d*)$/);
    expect(res.headers.get("Allow")).toMatch(/\bPOST\b/);
  });
});

/** The JSON type swagger 2.0 names for a value. */
const swaggerType = (v: unknown) =>
  Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "number" ? "number" : typeof v;

describe("the fabric simulator's Event Grid publisher against the same samples", () => {
  let sim: FabricSimulator;
  let receiver: WebhookReceiver;
  let eventId: string;
  beforeAll(async () => {
    sim = await startFabricSimulator({
      clock: new ManualClock(),
      topology: {
        groups: [
          {
            kind: "scaleSetPlacementGroup",
            name: "pg",
            scaleSetName: "ss",
            vms: 2,
            scheduledEventsPolicy: { eventGridAndResourceGraph: true },
          },
        ],
      },
    });
    receiver = await startWebhookReceiver();
    const sub = sim.eventGrid.subscribe({ endpointUrl: receiver.url, name: "contract" });
    const e = sim.schedule({ eventType: "Freeze", group: "pg" });
    eventId = e.eventId;
    expect(await approve(sim.imdsUrl(e.resources[0] as string), e.eventId)).toBe(200);
    sim.advance(10);
    await sub.settled();
  });
  afterAll(async () => {
    await sim?.stop();
    await receiver?.close();
  });

  const headersOf = (r: ReceivedRequest) =>
    Object.entries(r.headers).filter(([k]) => k.startsWith("aeg-")) as [string, string][];

  it("sends only the documented aeg- headers, with a documented aeg-event-type, versions matching the body", () => {
    const all = receiver.requests();
    expect(all.map((r) => r.eventType)).toEqual([
      "SubscriptionValidation",
      "Notification",
      "Notification",
      "Notification",
    ]);
    for (const r of all) {
      for (const [name] of headersOf(r)) expect(documentedHeaders).toContain(name);
      expect(documentedEventTypes).toContain(r.headers["aeg-event-type"]);
      const [event] = r.body as Record<string, unknown>[];
      expect(r.headers["aeg-data-version"]).toBe(event?.dataVersion);
      expect(r.headers["aeg-metadata-version"]).toBe(event?.metadataVersion);
    }
  });

  it("validates with an event shaped as Microsoft's sample: the same fields and versions", () => {
    const [sent] = (receiver.requests()[0]?.body ?? []) as Record<string, unknown>[];
    const [doc] = validationEvent as Record<string, unknown>[];
    expect(Object.keys(sent ?? {}).sort()).toEqual(Object.keys(doc ?? {}).sort());
    expect(Object.keys(sent?.data as object).sort()).toEqual(
      Object.keys(doc?.data as object).sort(),
    );
    expect([sent?.eventType, sent?.dataVersion, sent?.metadataVersion, sent?.subject]).toEqual([
      doc?.eventType,
      doc?.dataVersion,
      doc?.metadataVersion,
      doc?.subject,
    ]);
  });

  it("delivers each change as Microsoft's ScheduledEventEmitted sample: envelope, the swagger's data fields and types, the same properties; and the product reads it", () => {
    const details = swagger.definitions.ResourceNotificationsResourceUpdatedDetails.properties;
    const eventData = swagger.definitions.ResourceNotificationsResourceUpdatedEventData.properties;
    const notifications = receiver.notifications();
    expect(notifications).toHaveLength(3);
    for (const n of notifications) {
      const body = n.body as Record<string, unknown>[];
      expect(body).toHaveLength(1);
      const event = body[0] as Record<string, unknown>;
      expect(Object.keys(event).sort()).toEqual(Object.keys(computeSample).sort());
      for (const k of ["eventType", "dataVersion", "metadataVersion"])
        expect(event[k], k).toBe(gridSample[k]);
      const data = event.data as Record<string, unknown>;
      for (const k of Object.keys(data)) expect(Object.keys(eventData), `data.${k}`).toContain(k);
      const info = data.resourceInfo as Record<string, unknown>;
      for (const [k, v] of Object.entries(info)) {
        expect(Object.keys(details), `resourceInfo.${k}`).toContain(k);
        expect(swaggerType(v), `resourceInfo.${k}`).toBe(details[k].type);
      }
      expect(Object.keys(info.properties as object).sort()).toEqual(
        Object.keys(computeSample.data.resourceInfo.properties).sort(),
      );
      expect(event.subject).toBe(info.id);
      const d = parseEventGridDelivery(body);
      if (!d.ok || d.value.kind !== "events") throw new Error("not events");
      expect(d.value.rejected).toEqual([]);
      expect(d.value.observations.map((o) => o.event.EventId)).toEqual([eventId]);
    }
  });

  it("takes an answer as Event Grid does: only 200-204 deliver; the webhook codes it never retries are refused; the rest retried", () => {
    const success = [...statusText.matchAll(/^- (\d{3}) /gm)].map((m) => Number(m[1]));
    expect(success).toEqual([200, 201, 202, 203, 204]);
    const webhookRow = /^\| Webhook \|(.*)\|$/m.exec(statusText)?.[1] ?? "";
    const neverRetried = [...webhookRow.matchAll(/(\d{3}) \(/g)].map((m) => Number(m[1]));
    expect(neverRetried.sort()).toEqual([400, 401, 403, 413]);
    for (let status = 100; status < 600; status++) {
      const expected = success.includes(status)
        ? "delivered"
        : neverRetried.includes(status)
          ? "refused"
          : "retry";
      expect(verdict({ status, body: "" }), String(status)).toBe(expected);
    }
    expect(verdict({ error: "no answer within 30000 ms" })).toBe("retry");
  });
});
