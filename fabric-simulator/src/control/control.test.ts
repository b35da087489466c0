import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { approve, getScheduledEvents } from "../imds/probe";
import {
  FabricControlError,
  type FabricSimulator,
  startFabricSimulator,
} from "../simulator/simulator";
import { FabricControlClient } from "./client";

const START = Date.UTC(2026, 0, 5, 9, 0, 0);

let clock: ManualClock;
let sim: FabricSimulator;
let control: FabricControlClient;

beforeEach(async () => {
  clock = new ManualClock(START);
  sim = await startFabricSimulator({
    clock,
    topology: {
      groups: [
        { kind: "availabilitySet", name: "avset-a", vms: ["a0", "a1", "a2"] },
        { kind: "scaleSetPlacementGroup", name: "pg", scaleSetName: "ss", vms: 2 },
        { kind: "standalone", vms: ["solo"] },
      ],
    },
  });
  control = new FabricControlClient(sim.url);
});
afterEach(async () => {
  await sim.stop();
});

async function rawControl(method: string, path: string, body?: string) {
  const res = await fetch(`${sim.url}/control${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("control API over HTTP", () => {
  it("lists the topology with each VM's IMDS base URL", async () => {
    const t = await control.topology();
    expect(t.groups.map((g) => [g.name, g.kind, g.vms])).toEqual([
      ["avset-a", "availabilitySet", ["a0", "a1", "a2"]],
      ["pg", "scaleSetPlacementGroup", ["ss_0", "ss_1"]],
      ["solo", "standalone", ["solo"]],
    ]);
    const ss1 = t.vms.find((v) => v.name === "ss_1");
    expect(ss1?.imdsUrl).toBe(`${sim.url}/vm/ss_1`);
    expect(ss1?.resourceId).toMatch(/virtualMachineScaleSets\/ss\/virtualMachines\/1$/);
  });

  it("schedules, starts, changes, cancels events and answers 404/409 when it cannot", async () => {
    const e = await control.schedule({
      eventType: "Reboot",
      resources: ["a1"],
      noticeSeconds: 600,
    });
    expect(e).toMatchObject({
      group: "avset-a",
      resources: ["a1"],
      phase: "Scheduled",
      notBeforeMs: START + 600_000,
    });
    expect(e.eventId).toMatch(/^[0-9A-F-]{36}$/);
    expect((await control.changeResources(e.eventId, ["a1", "a2"])).resources).toEqual([
      "a1",
      "a2",
    ]);
    expect((await control.startNow(e.eventId)).startCause).toBe("control");
    await expect(control.cancel(e.eventId)).rejects.toMatchObject({ status: 409 });
    await expect(control.startNow("nope")).rejects.toMatchObject({ status: 404 });

    const c = await control.schedule({ eventType: "Freeze", group: "pg", eventId: "my-event" });
    expect((await control.cancel("MY-EVENT")).removalCause).toBe("cancelled");
    await expect(
      control.schedule({ eventType: "Freeze", group: "pg", eventId: "my-event" }),
    ).rejects.toMatchObject({
      status: 409,
    });
    expect((await control.events()).map((x) => x.eventId)).toEqual([e.eventId, c.eventId]);
    expect((await control.event(c.eventId)).phase).toBe("Removed");
  });

  it("rejects bad input with 400 and the zod issues", async () => {
    const unknownKey = await rawControl(
      "POST",
      "/events",
      JSON.stringify({ eventType: "Reboot", group: "pg", bogus: 1 }),
    );
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.json.issues).toEqual([
      { path: "(body)", message: expect.stringContaining("bogus") },
    ]);
    const badType = await rawControl(
      "POST",
      "/events",
      JSON.stringify({ eventType: "Re boot!", group: "pg" }),
    );
    expect(badType.status).toBe(400);
    expect(JSON.stringify(badType.json.issues)).toContain("eventType");
    expect((await rawControl("POST", "/events", "{not json")).status).toBe(400);
    const crossGroup = await rawControl(
      "POST",
      "/events",
      JSON.stringify({ eventType: "Reboot", resources: ["a0", "ss_0"] }),
    );
    expect(crossGroup.status).toBe(400);
    expect(crossGroup.json.error).toContain("not a VM of group avset-a");
    const noTarget = await rawControl("POST", "/events", JSON.stringify({ eventType: "Reboot" }));
    expect(noTarget.status).toBe(400);
    const fault = await rawControl("POST", "/faults", JSON.stringify({ vm: "a0" }));
    expect(fault.status).toBe(400);
    expect(JSON.stringify(fault.json.issues)).toContain("status");
    expect(
      (await rawControl("POST", "/faults", JSON.stringify({ vm: "a0", status: 418 }))).status,
    ).toBe(400);
    expect((await rawControl("GET", "/timeline?since=-1")).status).toBe(400);
    expect((await rawControl("GET", "/nothing-here")).status).toBe(404);
    expect((await rawControl("DELETE", "/events")).status).toBe(405);
    // Nothing above changed the fabric.
    expect((await control.timeline()).entries).toEqual([]);
  });

  it("injects and clears faults, jumps incarnations, advances the clock and reads the timeline", async () => {
    const added = await control.injectFault({ group: "avset-a", status: 503, count: 5 });
    expect(added.map((f) => f.vm)).toEqual(["a0", "a1", "a2"]);
    expect((await getScheduledEvents(sim.imdsUrl("a0"))).status).toBe(503);
    expect((await control.faults()).find((f) => f.vm === "a0")).toMatchObject({
      remaining: 4,
      served: 1,
    });
    expect(await control.clearFaults("a0")).toEqual({ cleared: 1 });
    expect((await getScheduledEvents(sim.imdsUrl("a0"))).status).toBe(200);
    expect(await control.clearFaults()).toEqual({ cleared: 2 });

    expect(await control.jumpIncarnation("pg", 10)).toEqual({ group: "pg", incarnation: 11 });
    expect((await control.document("pg")).DocumentIncarnation).toBe(11);

    const e = await control.schedule({ eventType: "Freeze", group: "solo", noticeSeconds: 60 });
    const before = await control.clock();
    expect(before).toMatchObject({ simMs: START, timeScale: null });
    expect((await control.advance(60)).simMs).toBe(START + 60_000);
    expect((await control.event(e.eventId)).startCause).toBe("notBefore");

    const { entries, lastSeq } = await control.timeline();
    expect(entries.map((x) => x.kind)).toEqual([
      "faultInjected",
      "faultInjected",
      "faultInjected",
      "faultServed",
      "faultsCleared",
      "faultsCleared",
      "document",
      "document",
      "document",
    ]);
    expect(entries.find((x) => x.kind === "faultServed")).toMatchObject({
      vm: "a0",
      detail: "HTTP 503 on scheduledevents",
    });
    expect((await control.timeline(lastSeq - 1)).entries).toHaveLength(1);
    expect((await control.timeline(lastSeq)).entries).toEqual([]);
  });

  it("adds groups at run time and resets to the first state of the topology (keeping added groups)", async () => {
    const added = await control.addGroups([{ kind: "availabilitySet", name: "avset-b", vms: 2 }]);
    expect(added.vms.map((v) => v.name)).toEqual(["avset-b-0", "avset-b-1"]);
    await expect(control.addGroups([{ kind: "standalone", vms: ["A0"] }])).rejects.toMatchObject({
      status: 409,
    });
    const e = await control.schedule({ eventType: "Reboot", group: "avset-b" });
    expect(await approve(sim.imdsUrl("avset-b-1"), e.eventId)).toBe(200);
    expect((await getScheduledEvents(sim.imdsUrl("avset-b-0"))).body?.DocumentIncarnation).toBe(3);

    await control.reset();
    expect(await control.events()).toEqual([]);
    expect((await control.timeline()).entries).toEqual([]);
    const after = await getScheduledEvents(sim.imdsUrl("avset-b-0"));
    expect(after.body).toEqual({ DocumentIncarnation: 1, Events: [] });
  });

  it("loads a new topology in place of the old one", async () => {
    await control.loadTopology({ groups: [{ kind: "availabilitySet", name: "x", vms: ["x0"] }] });
    expect((await getScheduledEvents(sim.imdsUrl("a0"))).status).toBe(404);
    expect((await getScheduledEvents(sim.imdsUrl("x0"))).status).toBe(200);
    await expect(
      control.loadTopology({ groups: [{ kind: "standalone", vms: ["d", "d"] }] }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

describe("in-process API", () => {
  it("throws FabricControlError with the status and the issues", () => {
    expect(() => sim.schedule({ eventType: "Reboot", group: "missing" })).toThrow(
      FabricControlError,
    );
    try {
      sim.schedule({ eventType: "", group: "pg" });
    } catch (e) {
      expect(e).toBeInstanceOf(FabricControlError);
      expect((e as FabricControlError).status).toBe(400);
      expect((e as FabricControlError).issues?.[0]?.path).toBe("eventType");
    }
  });
});
