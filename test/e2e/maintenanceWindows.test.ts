import {
  type E2eCluster,
  simEvent,
  startE2eCluster,
  startRequestsFor,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import { expectDrainedBeforeApproval, expectOneApprover } from "@quiesce/testkit/lifecycle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Maintenance windows end to end: real relays, the local coordinator on Azurite, the fabric
 * simulator at time scale 1. The whole test runs inside a blackout, so no window opens before
 * NotBefore: the relays hold their drains until the latest start (NotBefore − 18 s), then drain,
 * and the event is still approved before NotBefore. Relative to the event's own NotBefore, so it
 * needs no particular time of day.
 */

const topology = {
  groups: [{ kind: "availabilitySet" as const, name: "avset-mw", vmNamePrefix: "mw-", vms: 2 }],
};
const LATEST_START_S = 18;

describe("maintenance windows end to end", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    const now = Date.now();
    e = await startE2eCluster(topology, {
      drainDeadlineSecondsBeforeNotBefore: 5,
      maintenanceWindows: {
        timeZone: "Europe/Berlin",
        blackouts: [
          {
            name: "e2e-freeze",
            start: new Date(now - 3_600_000).toISOString(),
            end: new Date(now + 3_600_000).toISOString(),
          },
        ],
        latestDrainStartSecondsBeforeNotBefore: LATEST_START_S,
      },
    });
  });
  afterAll(async () => {
    await e?.stop();
  });

  it("holds the relays' drains to the latest start when no window opens in time, and still approves before NotBefore", async () => {
    const { c, markers } = e;
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["mw-0", "mw-1"],
      noticeSeconds: 24,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const notBefore = simEvent(c.fabric, ev.eventId).notBeforeMs as number;
    const latestStart = notBefore - LATEST_START_S * 1000;
    const deferred = await waitForPhase(c, ev.eventId, ["Observed"], 10_000);
    expect(deferred.waitingFor).toContain(
      "blackout e2e-freeze, no window before NotBefore: drain deferred to the latest start",
    );
    expect(deferred.blockers.map((b) => b.reason)).toEqual([
      "maintenanceWindow",
      "maintenanceWindow",
    ]);
    const approved = await waitForPhase(
      c,
      ev.eventId,
      ["Started", "Recovering", "Completed"],
      30_000,
    );
    expect(approved.maintenanceWindow).toContain("drain at the latest start");
    expectOneApprover(c.fabric, ev.eventId);
    expectDrainedBeforeApproval(c.fabric, markers, ev.eventId);
    for (const vm of ["mw-0", "mw-1"]) {
      const start = markers.runs("drain", vm, ev.eventId)[0]?.start as number;
      // Held until the latest start (the relay's clock is this machine's: 1 s for its IMDS poll).
      expect(start, `${vm} drained no earlier than the latest start`).toBeGreaterThanOrEqual(
        latestStart - 1_000,
      );
    }
    const approvedAt = startRequestsFor(c.fabric, ev.eventId)[0]?.at.realMs as number;
    expect(approvedAt, "approved before NotBefore").toBeLessThan(notBefore);
  });
});
