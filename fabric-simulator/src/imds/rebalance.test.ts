import { REBALANCE_API_VERSION, SCHEDULED_EVENTS_API_VERSION } from "@quiesce/protocol/imds";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { observedNotifications, startWebhookReceiver } from "../eventGrid/webhookReceiver";
import { SCHEDULED_EVENTS_API_VERSIONS } from "../model/document";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import type { TopologyInput } from "../topology/topology";
import { approve, getScheduledEvents } from "./probe";

/**
 * Spot rebalance recommendations (issue 32): served only at api-version 2024-07-09, advisory (a
 * StartRequests for one is accepted and changes nothing; it never goes Started), gone after its
 * duration or when a Preempt of its VM follows, and copied off the VM by Event Grid like the rest.
 */

const START = Date.UTC(2026, 0, 5, 9, 0, 0);
const SPOT: TopologyInput = {
  groups: [
    {
      kind: "scaleSetPlacementGroup",
      name: "spot-pg",
      scaleSetName: "spot",
      vms: 2,
      scheduledEventsPolicy: { eventGridAndResourceGraph: true },
    },
  ],
};
const [VM0, VM1] = ["spot_0", "spot_1"];

let clock: ManualClock;
let sim: FabricSimulator;
beforeEach(async () => {
  clock = new ManualClock(START);
  sim = await startFabricSimulator({ clock, topology: SPOT });
});
afterEach(async () => {
  await sim.stop();
});

const events = async (vm: string, apiVersion: string) => {
  const r = await getScheduledEvents(sim.imdsUrl(vm), { apiVersion });
  expect(r.status).toBe(200);
  return (r.body?.Events ?? []).map((e) => [e.EventType, e.EventStatus, e.Resources]);
};

describe("a SpotRebalanceRecommendation", () => {
  it("is served at api-version 2024-07-09 only; every older api-version shows the rest of the document without it", async () => {
    sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM0] });
    sim.schedule({ eventType: "Freeze", resources: [VM1] });
    expect(await events(VM0, REBALANCE_API_VERSION)).toEqual([
      ["SpotRebalanceRecommendation", "Scheduled", [VM0]],
      ["Freeze", "Scheduled", [VM1]],
    ]);
    const older = SCHEDULED_EVENTS_API_VERSIONS.filter((v) => v !== REBALANCE_API_VERSION);
    expect(older).toContain(SCHEDULED_EVENTS_API_VERSION);
    for (const v of older) expect((await events(VM0, v)).map(([type]) => type)).toEqual(["Freeze"]);
  });

  it("takes a StartRequests (200) that changes nothing: no approval, no new document, never Started", async () => {
    const e = sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM0] });
    const before = await getScheduledEvents(sim.imdsUrl(VM0), {
      apiVersion: REBALANCE_API_VERSION,
    });
    expect(await approve(sim.imdsUrl(VM0), e.eventId)).toBe(200);
    const after = await getScheduledEvents(sim.imdsUrl(VM0), { apiVersion: REBALANCE_API_VERSION });
    expect(after.body).toEqual(before.body);
    expect(sim.event(e.eventId)).toMatchObject({ phase: "Scheduled", approvals: [] });
    const answered = sim.timeline().entries.filter((x) => x.kind === "startRequests");
    expect(answered).toMatchObject([{ outcomes: [{ eventId: e.eventId, outcome: "advisory" }] }]);
    // Past its NotBefore it does not start either: it lapses.
    sim.advance(15 * 60);
    expect(sim.event(e.eventId)).toMatchObject({ phase: "Removed", removalCause: "completed" });
    expect(sim.event(e.eventId)?.startedAt).toBeUndefined();
  });

  it("leaves the document after its DurationInSeconds", async () => {
    const e = sim.schedule({
      eventType: "SpotRebalanceRecommendation",
      resources: [VM0],
      durationInSeconds: 120,
      noticeSeconds: 600,
    });
    sim.advance(119);
    expect(sim.event(e.eventId)?.phase).toBe("Scheduled");
    sim.advance(1);
    expect(sim.event(e.eventId)?.phase).toBe("Removed");
    expect(await events(VM0, REBALANCE_API_VERSION)).toEqual([]);
  });

  it("leaves in the same new document as a Preempt of its VM, and only the Preempt's VMs'", async () => {
    const mine = sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM0] });
    const other = sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM1] });
    const incarnation = sim.document("spot-pg").DocumentIncarnation;
    sim.schedule({ eventType: "Preempt", resources: [VM0] });
    expect(sim.document("spot-pg").DocumentIncarnation).toBe(incarnation + 1);
    expect(await events(VM0, REBALANCE_API_VERSION)).toEqual([
      ["SpotRebalanceRecommendation", "Scheduled", [VM1]],
      ["Preempt", "Scheduled", [VM0]],
    ]);
    expect(sim.event(mine.eventId)).toMatchObject({ phase: "Removed" });
    expect(sim.event(other.eventId)).toMatchObject({ phase: "Scheduled" });
  });

  it("is refused as a hardware failure, and the control API cannot start it", () => {
    expect(() =>
      sim.schedule({
        eventType: "SpotRebalanceRecommendation",
        resources: [VM0],
        startImmediately: true,
      }),
    ).toThrow(/advisory/);
    const e = sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM0] });
    expect(() => sim.startNow(e.eventId)).toThrow(/advisory/);
  });

  it("is copied off the VM by Event Grid, Scheduled then Completed", async () => {
    const r = await startWebhookReceiver({});
    try {
      const sub = sim.eventGrid.subscribe({ endpointUrl: r.url });
      await sub.settled();
      const e = sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM0] });
      sim.schedule({ eventType: "Preempt", resources: [VM0] });
      await sub.settled();
      const seen = observedNotifications(r).filter((n) => n.eventId === e.eventId);
      expect(seen.map((n) => n.status)).toEqual(["Scheduled", "Completed"]);
      const body = JSON.stringify(r.notifications()[0]?.body);
      expect(body).toContain('"EventType":"SpotRebalanceRecommendation"');
    } finally {
      await r.close();
    }
  });
});
