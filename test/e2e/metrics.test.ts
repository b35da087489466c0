import { localMetrics, pointsNamed } from "@quiesce/functions";
import { type E2eCluster, startE2eCluster, waitForPhase } from "@quiesce/testkit/cluster";
import { lastEnd } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Metrics from a real run: relays, simulator and coordinator as in the lifecycle tests, the
 * coordinator's meter from the real OTel SDK, read back after an approved, a cancelled and an
 * expired event (about 15 s).
 */

const topology = {
  groups: [
    { kind: "availabilitySet" as const, name: "avset-a", vms: ["web-0", "web-1"] },
    { kind: "availabilitySet" as const, name: "avset-b", vms: ["web-2"] },
    // lone-0 runs no relay: an event naming it can only expire at NotBefore.
    { kind: "availabilitySet" as const, name: "avset-c", vms: ["web-3", "lone-0"] },
    // One VM: killing its relay leaves its placement group (and scale set) with none.
    {
      kind: "scaleSetPlacementGroup" as const,
      name: "vmss-x-pg0",
      scaleSetName: "vmss-x",
      vms: 1,
    },
  ],
};

describe("metrics after an end-to-end run", () => {
  const metrics = localMetrics();
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(
      topology,
      { maxEventsInFlight: 4 },
      {
        relayVms: ["web-0", "web-1", "web-2", "web-3", "vmss-x_0"],
        coordinatorMeter: metrics.meter,
      },
    );
  });
  afterAll(async () => {
    await e?.stop();
    await metrics.shutdown();
  });

  it("counts approved, cancelled and expired events with their cluster, type and outcome, and the timings behind them", async () => {
    const { c, markers } = e;
    const approved = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const expired = c.fabric.schedule({
      eventType: "Reboot",
      resources: ["web-3", "lone-0"],
      noticeSeconds: 6,
      startedSeconds: 1,
    });
    // web-2 drains until its event was cancelled, however slow the machine.
    markers.hold("drain", "web-2");
    const cancelled = c.fabric.schedule({
      eventType: "Redeploy",
      resources: ["web-2"],
      noticeSeconds: 600,
    });
    // Gauges come from the sweep (every 500 ms here) while events are active.
    await waitFor(
      "5 live relays in the gauge",
      async () =>
        pointsNamed(await metrics.points(), "quiesce.relays.live", { cluster: "e2e" })[0]?.value ===
        5,
      10_000,
    );
    await waitFor(
      "web-2 draining",
      () => markers.runs("drain", "web-2", cancelled.eventId).length > 0,
      15_000,
    );
    c.fabric.cancel(cancelled.eventId);
    await Promise.all([
      waitForPhase(c, approved.eventId, ["Started", "Recovering", "Completed"], 20_000),
      waitForPhase(c, cancelled.eventId, ["Cancelled"], 20_000).finally(() =>
        markers.release("drain", "web-2"),
      ),
      waitForPhase(c, expired.eventId, ["ExpiredAtNotBefore", "Recovering", "Completed"], 20_000),
    ]);
    await waitFor(
      "drain ended",
      () => lastEnd(markers.runs("drain", "web-0", approved.eventId)) !== undefined,
      5_000,
    );

    const points = await metrics.points();
    const events = (attrs: Record<string, string>) =>
      pointsNamed(points, "quiesce.events", { cluster: "e2e", ...attrs });
    expect(events({ eventType: "Freeze", outcome: "approved", rule: "allDrained" })).toEqual([
      expect.objectContaining({ value: 1 }),
    ]);
    expect(events({ eventType: "Redeploy", outcome: "cancelled" })).toEqual([
      expect.objectContaining({ value: 1 }),
    ]);
    expect(events({ eventType: "Reboot", outcome: "expiredAtNotBefore" })).toEqual([
      expect.objectContaining({ value: 1 }),
    ]);
    const saved = pointsNamed(points, "quiesce.event.notice_saved", {
      cluster: "e2e",
      eventType: "Freeze",
    });
    expect(saved[0]?.value).toBe(1);
    expect(saved[0]?.sum).toBeGreaterThan(0.8); // approved within seconds of a 120 s notice
    expect(
      pointsNamed(points, "quiesce.event.notice_saved", { outcome: "expiredAtNotBefore" })[0]?.sum,
    ).toBe(0);
    expect(
      pointsNamed(points, "quiesce.event.drain_duration", { eventType: "Freeze" })[0]?.value,
    ).toBe(1);
    expect(
      pointsNamed(points, "quiesce.event.approval_delay", { eventType: "Freeze" })[0]?.value,
    ).toBe(1);
    const applied = pointsNamed(points, "quiesce.reports", { cluster: "e2e", outcome: "applied" });
    expect(applied[0]?.value).toBeGreaterThan(10);
    expect(
      pointsNamed(points, "quiesce.table.duration", { table: "Events", operation: "query" })[0]
        ?.value,
    ).toBeGreaterThan(0);
    expect(pointsNamed(points, "quiesce.relays.known", { cluster: "e2e" })[0]?.value).toBe(5);
  });

  it("shows a killed relay, and the placement group it leaves with none, in GET /api/alerts (about 15 s: the liveness timeout)", async () => {
    const { c } = e;
    await c.stopRelay("vmss-x_0");
    const alerts = await waitFor(
      "vmss-x_0 silent in GET /api/alerts",
      async () => {
        const res = await fetch(`${c.coordinatorUrl}/api/alerts`, {
          headers: { authorization: `Bearer ${c.operatorKey}` },
        });
        const body = (await res.json()) as {
          clusters: Array<{
            cluster: string;
            silent: Array<{ vm: string }>;
            uncoveredGroups: Array<{ kind: string; id: string }>;
          }>;
        };
        const mine = body.clusters.find((x) => x.cluster === "e2e");
        return mine && mine.silent.length > 0 ? mine : null;
      },
      25_000,
      250,
    );
    expect(alerts.silent.map((s) => s.vm)).toEqual(["vmss-x_0"]);
    expect(alerts.uncoveredGroups.map((g) => g.kind).sort()).toEqual([
      "placementGroup",
      "scaleSet",
    ]);
    expect(alerts.uncoveredGroups.find((g) => g.kind === "scaleSet")?.id).toBe("vmss-x");
  });
});
