import { generateTopology } from "@quiesce/fabric-simulator";
import {
  type E2eCluster,
  startE2eCluster,
  startRequestsFor,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import { expectPlannedLifecycle } from "@quiesce/testkit/lifecycle";
import { lastEnd } from "@quiesce/testkit/markers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Twenty VMs in two availability sets and two scale-set placement groups, six events at once
 * (two groups get two overlapping events each), a budget of two events in flight per cluster.
 */

const MAX_IN_FLIGHT = 2;

/** The largest number of [start, end] intervals that overlap at one instant. */
function maxOverlap(intervals: Array<[number, number]>): number {
  const points = intervals.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  // Ends before starts at the same instant: touching intervals do not overlap.
  points.sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number));
  let now = 0;
  let max = 0;
  for (const [, d] of points) {
    now += d as number;
    max = Math.max(max, now);
  }
  return max;
}

describe("20 VMs with overlapping events", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(generateTopology(20, 5), { maxEventsInFlight: MAX_IN_FLIGHT });
  });
  afterAll(async () => {
    await e?.stop();
  });

  it("drains, approves once and recovers every event, never more than maxEventsInFlight at a time", async () => {
    const { c, markers } = e;
    const groups = Object.values(c.fabric.state().groups);
    expect(groups.map((g) => g.vms.length)).toEqual([5, 5, 5, 5]);
    const events = groups.flatMap((g, i) => {
      const vms = g.vms;
      const first = c.fabric.schedule({
        eventType: i % 2 === 0 ? "Freeze" : "Reboot",
        resources: [vms[0] as string, vms[1] as string],
        noticeSeconds: 300,
        durationInSeconds: 1,
        startedSeconds: 1,
      });
      if (i >= 2) return [first];
      // A second event in the same group, naming one VM of the first and one of its own.
      const second = c.fabric.schedule({
        eventType: "Redeploy",
        resources: [vms[1] as string, vms[3] as string],
        noticeSeconds: 300,
        startedSeconds: 1,
      });
      return [first, second];
    });
    expect(events).toHaveLength(6);

    for (const ev of events) await waitForPhase(c, ev.eventId, ["Completed"], 90_000);

    const inFlight: Array<[number, number]> = [];
    for (const ev of events) {
      expectPlannedLifecycle(c.fabric, markers, ev.eventId);
      // From the fabric's StartRequests to the last recover ending: inside the span in which the
      // coordinator counts the event against the budget (it counts from election to confirmed
      // recovery), so more overlap here would mean more in the coordinator.
      const approvedAt = startRequestsFor(c.fabric, ev.eventId)[0]?.at.realMs as number;
      const recovered = Math.max(
        ...ev.resources.map((vm) => lastEnd(markers.runs("recover", vm, ev.eventId)) as number),
      );
      inFlight.push([approvedAt, recovered]);
    }
    expect(maxOverlap(inFlight)).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    // Six events never ran one after another only: the budget of two was used.
    expect(maxOverlap(inFlight)).toBe(MAX_IN_FLIGHT);
  });
});
