import type { StartRequestsBody } from "@quiesce/protocol/imds";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { approve, getScheduledEvents, postStartRequests } from "./probe";

/** StartRequests as Azure takes it: any VM of the group starts the event for all its Resources. */
const START = Date.UTC(2026, 0, 5, 9, 0, 0);
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
