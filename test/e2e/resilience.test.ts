import {
  type E2eCluster,
  FAST_POLICY,
  simEvent,
  startE2eCluster,
  startRequestsFor,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import { approveDirectives, type ReportProxy, startReportProxy } from "@quiesce/testkit/front";
import { bounded, startLagMonitor } from "@quiesce/testkit/lag";
import { expectPlannedLifecycle } from "@quiesce/testkit/lifecycle";
import { lastEnd } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Failures around a live event: the elected approver dying, the coordinator restarting, relays
 * cut off from the coordinator, IMDS answering errors. Whatever happens, the fabric must see
 * exactly one VM's StartRequests, after every VM the event names has drained.
 */

const topology = {
  groups: [
    {
      kind: "availabilitySet" as const,
      name: "avset-web",
      vms: ["web-0", "web-1", "web-2", "web-3"],
    },
  ],
};

describe("resilience end to end", () => {
  let e: E2eCluster;
  let proxy: ReportProxy;
  const lag = startLagMonitor();
  beforeAll(async () => {
    proxy = await startReportProxy();
    try {
      e = await startE2eCluster(
        topology,
        { maxEventsInFlight: 2 },
        {
          // Relays report through the proxy, which can make one of them vanish mid-answer.
          relaySettingsFor: () => ({ QUIESCE_COORDINATOR_URL: proxy.url }),
          relayOptions: {
            reportRetry: { baseMs: 200, maxMs: 1_000 },
            imds: { retryBaseMs: 50, retryMaxMs: 200 },
          },
        },
        (c) => {
          proxy.target = c.coordinatorUrl;
        },
      );
    } catch (err) {
      await proxy.stop();
      throw err;
    }
  });
  afterAll(async () => {
    lag.stop();
    await e?.stop();
    await proxy?.stop();
  });

  it("elects another approver when the elected one dies before posting StartRequests (lease expiry)", async () => {
    const { c, markers } = e;
    let killed: { vm: string; leaseExpiresAt: number } | undefined;
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    proxy.onAnswer = (vm, answer) => {
      const directive = approveDirectives(answer).find((d) => d.eventIds.includes(ev.eventId));
      if (killed || !directive) return "forward";
      killed = { vm, leaseExpiresAt: Date.parse(directive.leaseExpiresAt) };
      proxy.blocked.add(vm); // from now on this VM's reports never reach the coordinator
      return "drop";
    };
    const victim = await waitFor("an approver elected", () => killed, 20_000);
    await c.stopRelay(victim.vm);
    proxy.onAnswer = undefined;

    const approved = await waitFor(
      "StartRequests from a second approver",
      () => startRequestsFor(c.fabric, ev.eventId)[0],
      20_000,
    );
    expect(approved.vm).not.toBe(victim.vm);
    // Not before the dead approver's lease ran out (the coordinator and the fabric share a clock).
    expect(approved.at.realMs).toBeGreaterThanOrEqual(victim.leaseExpiresAt);
    // And within one active interval of it (the sweep every 500 ms, then the next eligible
    // report), plus a second, plus the scheduling delay measured meanwhile (a loaded machine
    // runs every step of it late by as much).
    const b = bounded(
      approved.at.realMs - victim.leaseExpiresAt,
      FAST_POLICY.activeReportSeconds * 1000 + 1_000,
      lag.between(victim.leaseExpiresAt, approved.at.realMs),
    );
    expect(b.ms, `lease expiry -> StartRequests: ${b.text}`).toBeLessThanOrEqual(b.allowedMs);

    proxy.blocked.delete(victim.vm);
    await c.startRelay(victim.vm); // it comes back and owes a recover if it drained
    const done = await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expect(done.approval.approvedBy).toBe(approved.vm);
    expect(done.approval.failedApprovers).toContain(victim.vm.toLowerCase());
    expectPlannedLifecycle(c.fabric, markers, ev.eventId);
  });

  it("keeps an event's state across a coordinator restart in the middle of it", async () => {
    const { c, markers } = e;
    // web-3 drains until the coordinator has restarted, however slow the machine.
    markers.hold("drain", "web-3");
    const ev = c.fabric.schedule({
      eventType: "Reboot",
      resources: ["web-2", "web-3"],
      noticeSeconds: 120,
      startedSeconds: 1,
    });
    let before: Awaited<ReturnType<typeof c.status.event>>;
    let restartedAt: number;
    try {
      await waitForPhase(c, ev.eventId, ["Draining"], 15_000);
      before = await c.status.event(ev.eventId, c.cluster);
      await c.restartCoordinator();
      restartedAt = Date.now();
      expect(startRequestsFor(c.fabric, ev.eventId)).toEqual([]);
    } finally {
      markers.release("drain", "web-3");
    }

    const done = await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expect(done.firstSeenAt).toBe(before.firstSeenAt);
    expect(done.timeline[0]).toEqual(before.timeline[0]);
    expectPlannedLifecycle(c.fabric, markers, ev.eventId);
    expect(startRequestsFor(c.fabric, ev.eventId)[0]?.at.realMs).toBeGreaterThan(restartedAt);
  });

  it("lets relays cut off from the coordinator drain on their own and report once it is back", async () => {
    const { c, markers } = e;
    await c.stopCoordinator();
    let restartedAt = 0;
    try {
      const ev = c.fabric.schedule({
        eventType: "Freeze",
        resources: ["web-0", "web-3"],
        noticeSeconds: 120,
        durationInSeconds: 1,
        startedSeconds: 1,
      });
      await waitFor(
        "drains done while reports fail",
        () =>
          ["web-0", "web-3"].every(
            (vm) =>
              lastEnd(markers.runs("drain", vm, ev.eventId)) !== undefined &&
              (c.relays.get(vm)?.state().coordinator.failuresInARow ?? 0) >= 2,
          ),
        15_000,
      );
      expect(startRequestsFor(c.fabric, ev.eventId)).toEqual([]);
      expect(simEvent(c.fabric, ev.eventId).phase).toBe("Scheduled");
      await c.startCoordinator();
      restartedAt = Date.now();
      await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
      expectPlannedLifecycle(c.fabric, markers, ev.eventId);
      expect(startRequestsFor(c.fabric, ev.eventId)[0]?.at.realMs).toBeGreaterThan(restartedAt);
    } finally {
      if (!restartedAt) await c.startCoordinator();
    }
  });

  it("approves exactly once, after every drain, through bursts of IMDS 410, 429 and 500", async () => {
    const { c, markers } = e;
    // Overlapping faults count every request they match and the first injected status wins,
    // so each VM's next polls get 410, 410, 429, 429, 500, 500; its first StartRequests gets 500.
    c.fabric.injectFault({ group: "avset-web", route: "scheduledevents", status: 410, count: 2 });
    c.fabric.injectFault({ group: "avset-web", route: "scheduledevents", status: 429, count: 4 });
    c.fabric.injectFault({ group: "avset-web", route: "scheduledevents", status: 500, count: 6 });
    c.fabric.injectFault({ group: "avset-web", route: "startrequests", status: 500, count: 1 });
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1", "web-2"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expectPlannedLifecycle(c.fabric, markers, ev.eventId);
    const served = c.fabric.timeline().entries.filter((t) => t.kind === "faultServed");
    const details = new Set(served.map((t) => ("detail" in t ? t.detail : "")));
    for (const d of [
      "HTTP 410 on scheduledevents",
      "HTTP 429 on scheduledevents",
      "HTTP 500 on scheduledevents",
      "HTTP 500 on startrequests",
    ])
      expect(details).toContain(d);
    c.fabric.clearFaults();
  });
});
