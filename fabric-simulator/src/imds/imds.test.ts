import {
  INSTANCE_METADATA_API_VERSION,
  type StartRequestsBody,
  vmIdentityFromInstanceMetadata,
} from "@quiesce/protocol/imds";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator";
import { approve, getInstanceMetadata, getScheduledEvents, postStartRequests } from "./probe";

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

describe("StartRequests", () => {
  it("from any VM of the group starts the event for all its Resources, even a VM it does not name", async () => {
    const e = sim.schedule({
      eventType: "Freeze",
      group: "vmss-api-pg0",
      resources: ["vmss-api_1", "vmss-api_2"],
    });
    expect(await approve(sim.imdsUrl("vmss-api_5"), e.eventId.toLowerCase())).toBe(200);
    for (const vm of API) {
      const d = await doc(vm);
      expect(d.DocumentIncarnation).toBe(3);
      expect(d.Events[0]).toMatchObject({
        EventId: e.eventId,
        EventStatus: "Started",
        NotBefore: "",
      });
    }
    const approved = sim.event(e.eventId);
    expect(approved).toMatchObject({
      phase: "Started",
      startCause: "approval",
      approvedBy: "vmss-api_5",
    });
  });

  it("answers 200 for unknown and already started ids, and 400 for malformed bodies", async () => {
    const e = sim.schedule({ eventType: "Reboot", group: "avset-web" });
    expect(await approve(sim.imdsUrl("web-0"), "no-such-event")).toBe(200);
    expect(await approve(sim.imdsUrl("web-0"), e.eventId)).toBe(200);
    expect(await approve(sim.imdsUrl("web-3"), e.eventId)).toBe(200);
    // An id from another group is not visible to this VM: accepted, ignored.
    const other = sim.schedule({ eventType: "Reboot", group: "avset-db" });
    expect(await approve(sim.imdsUrl("web-0"), other.eventId)).toBe(200);
    expect(sim.event(other.eventId)?.phase).toBe("Scheduled");

    const url = sim.imdsUrl("web-0");
    for (const rawBody of [
      "not json",
      "{}",
      '{"StartRequests":[]}',
      '{"StartRequests":[{"Id":"x"}]}',
      "[]",
    ]) {
      expect((await postStartRequests(url, undefined, { rawBody })).status, rawBody).toBe(400);
    }
    // The 2017 preview also sent DocumentIncarnation; it is accepted and ignored.
    const preview: StartRequestsBody = {
      StartRequests: [{ EventId: e.eventId }],
      DocumentIncarnation: 7,
    };
    expect((await postStartRequests(url, preview)).status).toBe(200);

    const { entries } = sim.timeline();
    const posts = entries.filter((x) => x.kind === "startRequests");
    expect(
      posts.map((p) => [p.vm, p.kind === "startRequests" ? p.outcomes[0]?.outcome : ""]),
    ).toEqual([
      ["web-0", "unknown"],
      ["web-0", "approved"],
      ["web-3", "alreadyStarted"],
      ["web-0", "unknown"],
      ["web-0", "alreadyStarted"],
    ]);
  });

  it("with requireAllApprovals waits for every VM in Resources (others' approvals do not count)", async () => {
    const e = sim.schedule({
      eventType: "Redeploy",
      group: "avset-web",
      resources: ["web-0", "web-1"],
      requireAllApprovals: true,
    });
    await approve(sim.imdsUrl("web-0"), e.eventId);
    await approve(sim.imdsUrl("web-3"), e.eventId);
    expect((await doc("web-2")).Events[0]?.EventStatus).toBe("Scheduled");
    expect((await doc("web-2")).DocumentIncarnation).toBe(2);
    await approve(sim.imdsUrl("web-1"), e.eventId);
    expect((await doc("web-2")).Events[0]?.EventStatus).toBe("Started");
    expect(sim.event(e.eventId)).toMatchObject({ approvedBy: "web-0", startCause: "approval" });
    expect(sim.event(e.eventId)?.approvals.map((a) => a.vm)).toEqual(["web-0", "web-3", "web-1"]);
  });
});

describe("lifecycle on the simulated clock", () => {
  it("starts at NotBefore without approval, stays Started for DurationInSeconds (at least the minimum), then leaves", async () => {
    const e = sim.schedule({
      eventType: "Freeze",
      group: "avset-db",
      noticeSeconds: 120,
      durationInSeconds: 30,
    });
    clock.advanceSeconds(119);
    expect((await doc("db-0")).Events[0]?.EventStatus).toBe("Scheduled");
    clock.advanceSeconds(1);
    const started = await doc("db-0");
    expect(started.Events[0]?.EventStatus).toBe("Started");
    expect(started.DocumentIncarnation).toBe(3);
    clock.advanceSeconds(29);
    expect((await doc("db-1")).Events).toHaveLength(1);
    clock.advanceSeconds(1);
    expect(await doc("db-2")).toEqual({ DocumentIncarnation: 4, Events: [] });
    const done = sim.event(e.eventId);
    expect(done).toMatchObject({
      phase: "Removed",
      removalCause: "completed",
      startCause: "notBefore",
    });
    expect(done?.startedAt?.simMs).toBe(START + 120_000);
    expect(done?.removedAt?.simMs).toBe(START + 150_000);
  });

  it("stamps transitions at the simulated instant they were due, however late the clock is read", async () => {
    const e = sim.schedule({
      eventType: "Reboot",
      group: "avset-web",
      noticeSeconds: 60,
      startedSeconds: 600,
    });
    clock.advanceSeconds(3600);
    expect(await doc("web-0")).toEqual({ DocumentIncarnation: 4, Events: [] });
    const ev = sim.event(e.eventId);
    expect(ev?.startedAt?.simMs).toBe(START + 60_000);
    expect(ev?.removedAt?.simMs).toBe(START + 660_000);
    const docs = sim.timeline().entries.filter((x) => x.kind === "document");
    expect(docs.map((d) => (d.kind === "document" ? [d.incarnation, d.at.simMs] : []))).toEqual([
      [2, START],
      [3, START + 60_000],
      [4, START + 660_000],
    ]);
  });

  it("cancellation removes a Scheduled event and nothing else happens", async () => {
    const e = sim.schedule({ eventType: "Reboot", group: "avset-web" });
    const c = sim.cancel(e.eventId);
    expect(c).toMatchObject({ phase: "Removed", removalCause: "cancelled" });
    expect(c.startedAt).toBeUndefined();
    expect(await doc("web-0")).toEqual({ DocumentIncarnation: 3, Events: [] });
    clock.advanceSeconds(3600);
    expect((await doc("web-0")).DocumentIncarnation).toBe(3);
  });

  it("a hardware failure appears already Started, never Scheduled", async () => {
    const e = sim.schedule({
      eventType: "Reboot",
      group: "avset-db",
      resources: ["db-2"],
      startImmediately: true,
    });
    const d = await doc("db-0");
    expect(d.DocumentIncarnation).toBe(2);
    expect(d.Events[0]).toMatchObject({
      EventId: e.eventId,
      EventStatus: "Started",
      NotBefore: "",
    });
    expect(sim.event(e.eventId)).toMatchObject({
      startCause: "hardwareFailure",
      notBeforeMs: null,
    });
    const kinds = sim
      .timeline()
      .entries.map((x) => (x.kind === "document" ? x.document.Events[0]?.EventStatus : ""));
    expect(kinds).not.toContain("Scheduled");
  });

  it("Preempt gives 30 s notice and deletes the VM when it completes; Terminate likewise", async () => {
    const p = sim.schedule({
      eventType: "Preempt",
      group: "vmss-api-pg0",
      resources: ["vmss-api_0"],
    });
    const [ev] = (await doc("vmss-api_3")).Events;
    expect(ev?.NotBefore).toBe(new Date(START + 30_000).toUTCString());
    const t = sim.schedule({
      eventType: "Terminate",
      group: "vmss-api-pg0",
      resources: ["vmss-api_1"],
      noticeSeconds: 300,
    });
    expect(sim.event(t.eventId)?.notBeforeMs).toBe(START + 300_000);
    clock.advanceSeconds(30 + 10);
    expect(sim.event(p.eventId)?.phase).toBe("Removed");
    expect((await getScheduledEvents(sim.imdsUrl("vmss-api_0"))).status).toBe(404);
    expect((await doc("vmss-api_1")).Events.map((x) => x.EventType)).toEqual(["Terminate"]);
    clock.advanceSeconds(300);
    expect((await getScheduledEvents(sim.imdsUrl("vmss-api_1"))).status).toBe(404);
    expect(sim.timeline().entries.flatMap((x) => (x.kind === "vmDeleted" ? [x.vm] : []))).toEqual([
      "vmss-api_0",
      "vmss-api_1",
    ]);
  });

  it("Resources can change between incarnations, and the incarnation can jump", async () => {
    const e = sim.schedule({ eventType: "Redeploy", group: "avset-web", resources: ["web-0"] });
    sim.changeResources(e.eventId, ["web-0", "web-2"]);
    const d = await doc("web-3");
    expect(d.DocumentIncarnation).toBe(3);
    expect(d.Events[0]?.Resources).toEqual(["web-0", "web-2"]);
    expect(sim.event(e.eventId)?.resourcesHistory.map((h) => [h.incarnation, h.resources])).toEqual(
      [
        [2, ["web-0"]],
        [3, ["web-0", "web-2"]],
      ],
    );
    expect(sim.jumpIncarnation("avset-web", 40)).toBe(43);
    const jumped = await doc("web-1");
    expect(jumped.DocumentIncarnation).toBe(43);
    expect(jumped.Events).toEqual(d.Events);
    expect((await doc("db-0")).DocumentIncarnation).toBe(1);
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

describe("timeline", () => {
  it("records every document change per group and every StartRequests with the VM that sent it", async () => {
    const a = sim.schedule({
      eventType: "Freeze",
      group: "avset-web",
      resources: ["web-0", "web-1"],
      noticeSeconds: 300,
    });
    const b = sim.schedule({ eventType: "Reboot", group: "avset-db", resources: ["db-0"] });
    clock.advanceSeconds(5);
    await approve(sim.imdsUrl("web-1"), a.eventId);
    sim.cancel(b.eventId);
    clock.advanceSeconds(60);
    const { entries, events } = sim.timeline();
    const summary = entries.map((x) =>
      x.kind === "document"
        ? `${x.group}#${x.incarnation}:${x.document.Events.map((e) => e.EventStatus).join(",") || "-"}`
        : x.kind === "startRequests"
          ? `POST ${x.vm} ${x.eventIds.join(",")}`
          : x.kind,
    );
    expect(summary).toEqual([
      "avset-web#2:Scheduled",
      "avset-db#2:Scheduled",
      `POST web-1 ${a.eventId}`,
      "avset-web#3:Started",
      "avset-db#3:-",
      "avset-web#4:-",
    ]);
    const post = entries.find((x) => x.kind === "startRequests");
    expect(post?.at.simMs).toBe(START + 5000);
    expect(typeof post?.at.realMs).toBe("number");
    expect(entries.map((x) => x.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const ea = events.find((e) => e.eventId === a.eventId);
    expect(ea).toMatchObject({
      approvedBy: "web-1",
      startCause: "approval",
      removalCause: "completed",
    });
    expect(ea?.scheduledAt.simMs).toBe(START);
    expect(ea?.approvedAt?.simMs).toBe(START + 5000);
    expect(ea?.startedAt?.simMs).toBe(START + 5000);
    expect(ea?.removedAt?.simMs).toBe(START + 15_000);
    expect(sim.timeline(4).entries.map((x) => x.seq)).toEqual([5, 6]);
  });

  it("tells a listener about every new entry once, in order, until it unsubscribes", async () => {
    const heard: string[] = [];
    const off = sim.onTimeline((e) => heard.push(`${e.seq}:${e.kind}`));
    const e = sim.schedule({ eventType: "Freeze", group: "avset-web", noticeSeconds: 30 });
    await approve(sim.imdsUrl("web-0"), e.eventId);
    clock.advanceSeconds(60);
    await doc("web-0");
    off();
    sim.schedule({ eventType: "Freeze", group: "avset-db" });
    expect(heard).toEqual(["1:document", "2:startRequests", "3:document", "4:document"]);
  });
});
