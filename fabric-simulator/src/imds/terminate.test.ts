import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FabricControlClient } from "../control/client";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { approve, getScheduledEvents } from "./probe";

/**
 * Terminate as Azure runs it for scale sets: one event per deleted VM, seen by the whole placement
 * group, each VM approving its own; and "Approve all pending deletes": an approved Terminate is
 * not carried out while a neighbour's Terminate is still Scheduled and unapproved.
 */

const START = Date.UTC(2026, 0, 5, 9, 0, 0);
let clock: ManualClock;
let sim: FabricSimulator;

beforeEach(async () => {
  clock = new ManualClock(START);
  sim = await startFabricSimulator({
    clock,
    topology: {
      groups: [
        { kind: "scaleSetPlacementGroup", name: "pg0", scaleSetName: "ss", vms: ["ss_0", "ss_1"] },
        { kind: "scaleSetPlacementGroup", name: "pg1", scaleSetName: "ss", vms: ["ss_2", "ss_3"] },
        { kind: "scaleSetPlacementGroup", name: "other", vms: 1 },
      ],
    },
  });
});
afterEach(async () => {
  await sim.stop();
});

const imdsStatus = async (vm: string) => (await getScheduledEvents(sim.imdsUrl(vm))).status;
const phase = (eventId: string) => sim.event(eventId)?.phase;
async function shown(vm: string) {
  const d = (await getScheduledEvents(sim.imdsUrl(vm))).body;
  return d?.Events.map((e) => [e.EventType, e.Resources, e.EventStatus]);
}

describe("deleting instances", () => {
  it("gives each VM its own Terminate with one NotBefore, shown to its whole placement group", async () => {
    const control = new FabricControlClient(sim.url);
    const [t1, t2] = await control.deleteInstances("SS", ["ss_1", "ss_2"], { noticeSeconds: 600 });
    expect([t1?.resources, t2?.resources]).toEqual([["ss_1"], ["ss_2"]]);
    expect([t1?.group, t2?.group]).toEqual(["pg0", "pg1"]);
    expect(t1?.notBeforeMs).toBe(START + 600_000);
    expect(t2?.notBeforeMs).toBe(t1?.notBeforeMs);
    expect(await shown("ss_0")).toEqual([["Terminate", ["ss_1"], "Scheduled"]]);
    expect(await shown("ss_3")).toEqual([["Terminate", ["ss_2"], "Scheduled"]]);

    await expect(control.deleteInstances("ss", ["ss_1"])).rejects.toMatchObject({ status: 409 });
    await expect(control.deleteInstances("ss", ["other_0"])).rejects.toMatchObject({ status: 400 });
    await expect(control.deleteInstances("nope", ["ss_0"])).rejects.toMatchObject({ status: 404 });
    expect(() =>
      sim.schedule({ eventType: "Terminate", group: "pg0", resources: ["ss_0", "ss_1"] }),
    ).toThrow(/names one VM/);
  });

  it("an approved Terminate waits for the neighbour's unapproved one, then both go together", async () => {
    const [t0, t1] = sim.deleteInstances("ss", ["ss_0", "ss_1"]);
    if (!t0 || !t1) throw new Error("two events expected");
    // Each VM approves only its own event, as the docs tell scale-set VMs to.
    expect(await approve(sim.imdsUrl("ss_1"), t1.eventId)).toBe(200);
    expect(phase(t1.eventId)).toBe("Scheduled");
    expect(sim.timeline().entries.at(-1)).toMatchObject({
      kind: "startRequests",
      outcomes: [{ eventId: t1.eventId, outcome: "waitingForOthers" }],
    });
    sim.advance(60);
    expect(await shown("ss_0")).toEqual([
      ["Terminate", ["ss_0"], "Scheduled"],
      ["Terminate", ["ss_1"], "Scheduled"],
    ]);
    expect(await imdsStatus("ss_1")).toBe(200);

    expect(await approve(sim.imdsUrl("ss_0"), t0.eventId)).toBe(200);
    const [a0, a1] = [sim.event(t0.eventId), sim.event(t1.eventId)];
    expect([a0?.phase, a1?.phase]).toEqual(["Started", "Started"]);
    expect(a1?.startedAt?.simMs).toBe(a0?.startedAt?.simMs);
    expect(a0?.approvals.map((a) => a.vm)).toEqual(["ss_0"]);
    expect(a1?.approvals.map((a) => a.vm)).toEqual(["ss_1"]);
    expect(a1?.approvedBy).toBe("ss_1");
    sim.advance(10);
    expect([await imdsStatus("ss_0"), await imdsStatus("ss_1")]).toEqual([404, 404]);
  });

  it("the neighbour's NotBefore passing lets the held one go; a Terminate of another scale set never holds it", async () => {
    const held = sim.schedule({ eventType: "Terminate", resources: ["ss_2"], noticeSeconds: 900 });
    const slow = sim.schedule({ eventType: "Terminate", resources: ["ss_3"], noticeSeconds: 300 });
    sim.schedule({ eventType: "Terminate", resources: ["other_0"], noticeSeconds: 900 });
    expect(await approve(sim.imdsUrl("ss_2"), held.eventId)).toBe(200);
    sim.advance(299);
    expect(phase(held.eventId)).toBe("Scheduled");
    sim.advance(1);
    expect(sim.event(slow.eventId)).toMatchObject({ phase: "Started", startCause: "notBefore" });
    expect(sim.event(held.eventId)).toMatchObject({
      phase: "Started",
      startCause: "approval",
      startedAt: { simMs: START + 300_000 },
    });
    const reasons = sim
      .timeline()
      .entries.flatMap((e) => (e.kind === "document" ? [e.reason] : []));
    expect(reasons.at(-1)).toMatch(/no pending delete of the scale set holds it any more/);
  });

  it("cancelling the unapproved neighbour lets the approved one go", async () => {
    const [t2, t3] = sim.deleteInstances("ss", ["ss_2", "ss_3"]);
    if (!t2 || !t3) throw new Error("two events expected");
    await approve(sim.imdsUrl("ss_2"), t2.eventId);
    expect(phase(t2.eventId)).toBe("Scheduled");
    sim.cancel(t3.eventId);
    expect(phase(t2.eventId)).toBe("Started");
  });
});
