import {
  INSTANCE_METADATA_API_VERSION,
  vmIdentityFromInstanceMetadata,
} from "@quiesce/protocol/imds";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { approve, getInstanceMetadata, getScheduledEvents, postStartRequests } from "./probe";

/**
 * The fabric simulator's IMDS as a relay meets it: Azure's request rules, the instance metadata,
 * the Scheduled Events document and its versions, and the faults a test can inject.
 */
const START = Date.UTC(2026, 0, 5, 9, 0, 0);
const WEB = ["web-0", "web-1", "web-2", "web-3"];
const DB = ["db-0", "db-1", "db-2", "db-3"];
const API = ["vmss-api_0", "vmss-api_1", "vmss-api_2", "vmss-api_3", "vmss-api_4", "vmss-api_5"];

let clock: ManualClock;
let sim: FabricSimulator;

beforeEach(async () => {
  clock = new ManualClock(START);
  sim = await startFabricSimulator({ clock });
});
afterEach(async () => {
  await sim.stop();
});

const doc = async (vm: string) => {
  const r = await getScheduledEvents(sim.imdsUrl(vm));
  expect(r.status).toBe(200);
  return r.body as NonNullable<typeof r.body>;
};

describe("IMDS request rules", () => {
  it("answers 400 without the Metadata: true header, on GET and POST", async () => {
    const get = await getScheduledEvents(sim.imdsUrl("web-0"), { metadataHeader: false });
    expect(get.status).toBe(400);
    expect(get.text).toContain("metadata header");
    const post = await postStartRequests(
      sim.imdsUrl("web-0"),
      { StartRequests: [{ EventId: "x" }] },
      { metadataHeader: false },
    );
    expect(post.status).toBe(400);
    const md = await fetch(`${sim.imdsUrl("web-0")}/metadata/instance?api-version=2021-02-01`);
    expect(md.status).toBe(400);
  });

  it("answers 400 without an api-version or with an unknown one, naming the newest versions", async () => {
    const missing = await getScheduledEvents(sim.imdsUrl("web-0"), { apiVersion: null });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text)["newest-versions"]).toContain("2020-07-01");
    const unknown = await getScheduledEvents(sim.imdsUrl("web-0"), { apiVersion: "2099-01-01" });
    expect(unknown.status).toBe(400);
    const latest = await getScheduledEvents(sim.imdsUrl("web-0"), { apiVersion: "latest" });
    expect(latest.status).toBe(400);
  });

  it("refuses requests that came through a proxy (X-Forwarded-For)", async () => {
    const res = await fetch(
      `${sim.imdsUrl("web-0")}/metadata/scheduledevents?api-version=2020-07-01`,
      {
        headers: { Metadata: "true", "X-Forwarded-For": "10.0.0.9" },
      },
    );
    expect(res.status).toBe(400);
  });

  it("answers 405 for other methods and 400 for an unknown instance api-version", async () => {
    const put = await fetch(
      `${sim.imdsUrl("web-0")}/metadata/scheduledevents?api-version=2020-07-01`,
      {
        method: "PUT",
        headers: { Metadata: "true" },
      },
    );
    expect(put.status).toBe(405);
    expect((await getInstanceMetadata(sim.imdsUrl("web-0"), "2020-09-01")).status).toBe(200);
    expect((await getInstanceMetadata(sim.imdsUrl("web-0"), "2099-01-01")).status).toBe(400);
  });

  it("answers 404 for a VM the fabric does not have", async () => {
    const r = await getScheduledEvents(sim.imdsUrl("nobody"));
    expect(r.status).toBe(404);
  });
});

describe("instance metadata", () => {
  it("parses with the relay's InstanceMetadata schema, with scale-set and availability-set resource ids", async () => {
    const ss = await getInstanceMetadata(sim.imdsUrl("vmss-api_4"), INSTANCE_METADATA_API_VERSION);
    expect(ss.status).toBe(200);
    const ssId = vmIdentityFromInstanceMetadata(ss.body as NonNullable<typeof ss.body>);
    expect(ssId.name).toBe("vmss-api_4");
    expect(ssId.vmScaleSetName).toBe("vmss-api");
    expect(ssId.placementGroupId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ssId.resourceId).toMatch(
      /^\/subscriptions\/[^/]+\/resourceGroups\/quiesce-sim\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/vmss-api\/virtualMachines\/4$/,
    );

    const av = await getInstanceMetadata(sim.imdsUrl("db-1"));
    const avId = vmIdentityFromInstanceMetadata(av.body as NonNullable<typeof av.body>);
    expect(avId.resourceId).toMatch(/\/providers\/Microsoft\.Compute\/virtualMachines\/db-1$/);
    expect(avId.vmScaleSetName).toBeUndefined();
    expect(avId.platformFaultDomain).toBe("1");
    expect(avId.vmId).not.toBe(ssId.vmId);
  });
});

describe("Scheduled Events document", () => {
  it("starts empty at incarnation 1 and carries an ETag; If-None-Match with it gets 304", async () => {
    const first = await getScheduledEvents(sim.imdsUrl("web-0"));
    expect(first.body).toEqual({ DocumentIncarnation: 1, Events: [] });
    expect(first.etag).toMatch(/^".+"$/);
    const again = await getScheduledEvents(sim.imdsUrl("web-0"), {
      ifNoneMatch: first.etag as string,
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.etag).toBe(first.etag);

    sim.schedule({ eventType: "Reboot", group: "avset-web", resources: ["web-1"] });
    const changed = await getScheduledEvents(sim.imdsUrl("web-0"), {
      ifNoneMatch: first.etag as string,
    });
    expect(changed.status).toBe(200);
    expect(changed.etag).not.toBe(first.etag);
  });

  it("delivers an event to every VM of its group with the same EventId and incarnation, and to no other group", async () => {
    const e = sim.schedule({
      eventType: "Freeze",
      group: "avset-web",
      resources: ["web-1", "web-2"],
    });
    const seen = await Promise.all(WEB.map(doc));
    for (const d of seen) {
      expect(d.DocumentIncarnation).toBe(2);
      expect(d.Events.map((x) => x.EventId)).toEqual([e.eventId]);
      expect(d.Events[0]?.Resources).toEqual(["web-1", "web-2"]);
    }
    for (const vm of [...DB, ...API]) {
      expect(await doc(vm)).toEqual({ DocumentIncarnation: 1, Events: [] });
    }
  });

  it("shows NotBefore in RFC 1123 at the type's minimum notice, then '' once Started", async () => {
    const e = sim.schedule({
      eventType: "Reboot",
      group: "avset-db",
      eventId: "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
    });
    const [ev] = (await doc("db-0")).Events;
    expect(ev?.NotBefore).toBe(new Date(START + 15 * 60_000).toUTCString());
    expect(ev?.NotBefore).toMatch(
      /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    expect(ev).toMatchObject({
      EventType: "Reboot",
      ResourceType: "VirtualMachine",
      Resources: DB,
      EventStatus: "Scheduled",
      EventSource: "Platform",
      DurationInSeconds: -1,
    });
    sim.startNow(e.eventId);
    const [st] = (await doc("db-3")).Events;
    expect(st).toMatchObject({ EventStatus: "Started", NotBefore: "" });
  });

  it("serves older api-versions in their own format (2017-03-01: ISO NotBefore, no newer fields or types)", async () => {
    sim.schedule({ eventType: "Reboot", group: "avset-web" });
    sim.schedule({ eventType: "Preempt", group: "avset-web", resources: ["web-0"] });
    const old = await getScheduledEvents(sim.imdsUrl("web-0"), { apiVersion: "2017-03-01" });
    expect(old.body?.Events).toHaveLength(1);
    const [ev] = old.body?.Events ?? [];
    expect(ev?.NotBefore).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(ev).not.toHaveProperty("Description");
    expect(ev).not.toHaveProperty("DurationInSeconds");
    const mid = await getScheduledEvents(sim.imdsUrl("web-0"), { apiVersion: "2019-04-01" });
    expect(mid.body?.Events).toHaveLength(2);
    expect(mid.body?.Events[0]).toHaveProperty("Description");
    expect(mid.body?.Events[0]).not.toHaveProperty("EventSource");
  });
});

describe("injected faults", () => {
  it("answers 410, 429 or 500 for N requests of one VM, then recovers; other VMs are untouched", async () => {
    sim.injectFault({ vm: "web-1", status: 429, count: 2 });
    expect((await getScheduledEvents(sim.imdsUrl("web-1"))).status).toBe(429);
    expect((await getScheduledEvents(sim.imdsUrl("web-0"))).status).toBe(200);
    expect((await getScheduledEvents(sim.imdsUrl("web-1"))).status).toBe(429);
    expect((await getScheduledEvents(sim.imdsUrl("web-1"))).status).toBe(200);

    sim.injectFault({ vm: "web-2", status: 410, route: "scheduledevents", count: 1 });
    expect((await getInstanceMetadata(sim.imdsUrl("web-2"))).status).toBe(200);
    expect((await getScheduledEvents(sim.imdsUrl("web-2"))).status).toBe(410);

    const e = sim.schedule({ eventType: "Reboot", group: "avset-web" });
    sim.injectFault({ vm: "web-3", status: 500, route: "startrequests", count: 1 });
    expect(await approve(sim.imdsUrl("web-3"), e.eventId)).toBe(500);
    expect(sim.event(e.eventId)?.phase).toBe("Scheduled");
    expect(await approve(sim.imdsUrl("web-3"), e.eventId)).toBe(200);
    expect(sim.event(e.eventId)?.phase).toBe("Started");
  });

  it("a fault with a duration lasts that many simulated seconds", async () => {
    sim.injectFault({ group: "avset-db", status: 500, durationSeconds: 10 });
    for (const vm of DB) expect((await getScheduledEvents(sim.imdsUrl(vm))).status).toBe(500);
    clock.advanceSeconds(10);
    for (const vm of DB) expect((await getScheduledEvents(sim.imdsUrl(vm))).status).toBe(200);
    expect(sim.state().faults).toEqual([]);
  });

  it("adds latency before the answer", async () => {
    sim.injectFault({ vm: "db-0", latencyMs: 150, count: 1 });
    const t0 = performance.now();
    expect((await getScheduledEvents(sim.imdsUrl("db-0"))).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });
});
