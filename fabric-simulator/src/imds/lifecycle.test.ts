import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { approve, getScheduledEvents } from "./probe";

/**
 * An event's life on the simulated clock (NotBefore, Started, gone, cancelled, hardware failure,
 * Preempt and Terminate), and the timeline that records it.
 */
const START = Date.UTC(2026, 0, 5, 9, 0, 0);

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
