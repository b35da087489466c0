import { simEvent, startRequestsFor } from "@quiesce/testkit/cluster";
import { approveDirectives } from "@quiesce/testkit/front";
import { bounded } from "@quiesce/testkit/lag";
import {
  expectOneApprover,
  expectOnlyResourcesHooked,
  expectPlannedLifecycle,
  expectRecoveredAfterEnd,
} from "@quiesce/testkit/lifecycle";
import { lastEnd } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAOS_POLICY, type ChaosCluster, startChaosCluster } from "./support/chaos";

/**
 * Chaos end to end, every crash a SIGKILL of a real process: the coordinator instances and
 * Azurite (on disk, which then loses what it had not saved), a relay in the middle of its drain.
 * Throughout, two coordinator instances race, two relays' clocks are 30 s off, and one relay's
 * reports are duplicated and replayed out of order. Each test proves the invariants from what the
 * fabric and the hooks saw, and bounds convergence from timestamps: within one active report
 * interval of the coordinator answering again, plus SLACK_MS, plus the scheduling delay this
 * process and the coordinator processes measured over that very interval (a loaded machine runs
 * every step late by as much; an idle one measures ~0), stated in every line and failure.
 */

const ACTIVE_MS = CHAOS_POLICY.activeReportSeconds * 1000;
const SLACK_MS = 1_000;
const BOUND_MS = ACTIVE_MS + SLACK_MS;

const topology = {
  groups: [
    {
      kind: "availabilitySet" as const,
      name: "avset-web",
      vms: ["web-0", "web-1", "web-2", "web-3"],
    },
  ],
};

describe("chaos end to end (real processes, Azurite on disk)", () => {
  let x: ChaosCluster;
  beforeAll(async () => {
    x = await startChaosCluster(topology);
  }, 90_000);
  afterAll(async () => {
    await x?.stop();
  });

  /** `ms` (from `fromMs` to `toMs`) within BOUND_MS plus the scheduling delay meanwhile. */
  const expectWithinBound = async (what: string, ms: number, fromMs: number, toMs: number) => {
    const delay = await x.schedulingDelay(fromMs, toMs);
    const b = bounded(ms, BOUND_MS, delay.ms, delay.detail);
    process.stdout.write(`chaos: ${what}: ${b.text}\n`); // the figure for the issue note
    const detail = ms > b.allowedMs ? `\n${x.journalSince(fromMs)}` : "";
    expect(ms, `${what}: ${b.text}${detail}`).toBeLessThanOrEqual(b.allowedMs);
  };

  it("keeps every invariant with clocks 30 s off, racing instances, replayed reports and IMDS storms", async () => {
    const { fabric, markers } = x;
    fabric.injectFault({ group: "avset-web", route: "scheduledevents", status: 410, count: 2 });
    fabric.injectFault({ group: "avset-web", route: "scheduledevents", status: 429, count: 4 });
    fabric.injectFault({ group: "avset-web", route: "scheduledevents", status: 500, count: 6 });
    fabric.injectFault({ group: "avset-web", route: "startrequests", status: 500, count: 1 });
    const ev = fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1", "web-2", "web-3"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await x.waitForPhase(ev.eventId, ["Completed"]);
    expectPlannedLifecycle(fabric, markers, ev.eventId);
    expect(x.replayed()).toBeGreaterThan(0);
    const lastDrain = Math.max(
      ...ev.resources.map((vm) => lastEnd(markers.runs("drain", vm, ev.eventId)) ?? 0),
    );
    const approvedAt = startRequestsFor(fabric, ev.eventId)[0]?.at.realMs ?? 0;
    await expectWithinBound(
      "last drain end -> StartRequests under skew, races, replays and storms",
      approvedAt - lastDrain,
      lastDrain,
      approvedAt,
    );
    fabric.clearFaults();
  });

  it("re-runs the drain of a relay SIGKILLed mid-drain once restarted, and approves only after it", async () => {
    const { fabric, markers } = x;
    // web-3's drain runs until the relay was killed and started again, however slow the machine.
    markers.hold("drain", "web-3");
    try {
      const ev = fabric.schedule({
        eventType: "Reboot",
        resources: ["web-2", "web-3"],
        noticeSeconds: 120,
        startedSeconds: 1,
      });
      await waitFor(
        "web-3 draining",
        () => markers.runs("drain", "web-3", ev.eventId).length > 0,
        15_000,
      );
      await x.relayProcess.kill();
      expect(startRequestsFor(fabric, ev.eventId)).toEqual([]);
      x.relayProcess.start();
      await waitFor(
        "web-3 draining again",
        () => markers.runs("drain", "web-3", ev.eventId).length >= 2,
        15_000,
      );
      expect(startRequestsFor(fabric, ev.eventId)).toEqual([]);
      markers.release("drain", "web-3");
      await x.waitForPhase(ev.eventId, ["Completed"], 40_000);
      const runs = markers.runs("drain", "web-3", ev.eventId);
      expect(runs.length, "the interrupted drain ran again").toBeGreaterThanOrEqual(2);
      expectPlannedLifecycle(fabric, markers, ev.eventId);
      const rerunEnd = lastEnd(runs) ?? 0;
      const approvedAt = startRequestsFor(fabric, ev.eventId)[0]?.at.realMs ?? 0;
      await expectWithinBound(
        "re-run drain end -> StartRequests after a relay SIGKILL",
        approvedAt - rerunEnd,
        rerunEnd,
        approvedAt,
      );
    } finally {
      markers.release("drain", "web-3");
    }
  });

  it("replaces an approver SIGKILLed between its election and its StartRequests within one interval of the lease", async () => {
    const { fabric, markers } = x;
    markers.hold("drain", "web-3"); // web-3 drains last (once web-2 has): it is elected
    let elected: { leaseExpiresAt: number } | undefined;
    x.relayProxy.onAnswer = (vm, answer) => {
      const d = approveDirectives(answer)[0];
      if (vm !== "web-3" || !d || elected) return "forward";
      elected = { leaseExpiresAt: Date.parse(d.leaseExpiresAt) };
      void x.relayProcess.kill(); // it dies with the directive unread
      return "drop";
    };
    try {
      const ev = fabric.schedule({
        eventType: "Freeze",
        resources: ["web-2", "web-3"],
        noticeSeconds: 120,
        durationInSeconds: 1,
        startedSeconds: 1,
      });
      // The relay whose report completes the picture is elected. Once a coordinator counts web-2
      // drained, web-2's reports are cut off until web-3 is elected: otherwise coordinator A,
      // applying a report of web-2 while B applies web-3's drained one, could elect web-2 (seen
      // in 2 fresh-clone runs of 6, as "web-3 elected" never coming).
      await waitFor(
        "web-2 drained, as the coordinator counts it",
        async () =>
          (
            await x
              .status()
              .event(ev.eventId, x.cluster)
              .catch(() => null)
          )?.drained.includes("web-2") === true,
        15_000,
      );
      x.replayProxy.blocked.add("web-2");
      markers.release("drain", "web-3");
      const victim = await waitFor("web-3 elected", () => elected, 20_000);
      x.replayProxy.blocked.delete("web-2");
      const approved = await waitFor(
        "StartRequests from another approver",
        () => startRequestsFor(fabric, ev.eventId)[0],
        20_000,
      );
      expect(approved.vm).not.toBe("web-3");
      expect(approved.at.realMs).toBeGreaterThanOrEqual(victim.leaseExpiresAt);
      await expectWithinBound(
        "dead approver's lease expiry -> StartRequests by another",
        approved.at.realMs - victim.leaseExpiresAt,
        victim.leaseExpiresAt,
        approved.at.realMs,
      );
      x.relayProxy.onAnswer = undefined;
      x.relayProcess.start(); // it owes a recover
      await x.waitForPhase(ev.eventId, ["Completed"], 40_000);
      expectOneApprover(fabric, ev.eventId);
      expectOnlyResourcesHooked(fabric, markers, ev.eventId);
      expectRecoveredAfterEnd(fabric, markers, ev.eventId);
      // Killed before its state file recorded the drain, web-3 may drain again once restarted
      // (at least once, by design); what counts is that a drain of each VM ended before approval.
      for (const vm of ev.resources) {
        const ends = markers.runs("drain", vm, ev.eventId).flatMap((r) => (r.end ? [r.end] : []));
        expect(Math.min(...ends), `${vm} drained before StartRequests`).toBeLessThanOrEqual(
          approved.at.realMs,
        );
      }
    } finally {
      x.relayProxy.onAnswer = undefined;
      x.replayProxy.blocked.delete("web-2");
      markers.release("drain", "web-3");
    }
  });

  it("converges within one active interval after both instances and Azurite are SIGKILLed mid-write", async () => {
    const { fabric, markers } = x;
    // web-1 drains until everything was killed, however slow the machine.
    markers.hold("drain", "web-1");
    try {
      const ev = fabric.schedule({
        eventType: "Freeze",
        resources: ["web-0", "web-1"],
        noticeSeconds: 120,
        durationInSeconds: 1,
        startedSeconds: 1,
      });
      await x.waitForPhase(ev.eventId, ["Draining"]);
      // Mid-write: while coordinator A is handling a (replayed) report of the event.
      await waitFor("a report in flight to A", () => x.reportsInFlight() > 0, 10_000, 1);
      await Promise.all([...x.coordinators.map((c) => c.kill()), x.killAzurite()]);
      markers.release("drain", "web-1");
      await waitFor(
        "both drains done while the coordinator is down",
        () => ev.resources.every((vm) => lastEnd(markers.runs("drain", vm, ev.eventId))),
        15_000,
      );
      expect(startRequestsFor(fabric, ev.eventId)).toEqual([]);
      expect(simEvent(fabric, ev.eventId).phase).toBe("Scheduled");
      await x.startAzurite();
      await Promise.all(x.coordinators.map((c) => c.start()));
      const answeredAt = await x.answeringAgain();
      const approved = await waitFor(
        "StartRequests after the restart",
        () => startRequestsFor(fabric, ev.eventId)[0],
        20_000,
      );
      // Negative when the first instance back already had every drain reported through it.
      const converged = Math.max(0, approved.at.realMs - answeredAt);
      await expectWithinBound(
        "coordinators + Azurite restart -> StartRequests",
        converged,
        answeredAt,
        approved.at.realMs,
      );
      await x.waitForPhase(ev.eventId, ["Completed"]);
      expectPlannedLifecycle(fabric, markers, ev.eventId);
    } finally {
      markers.release("drain", "web-1");
    }
  });

  it("heals within one active interval when Azurite is SIGKILLed right after an event completed and loses its last writes", async () => {
    const { fabric, markers } = x;
    // Started for 7 s: the event's first writes are saved (Azurite saves every 5 s) before it
    // completes, so the crash takes exactly its last writes, Completed and the recovers among them.
    const ev = fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-2"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 7,
    });
    await x.waitForPhase(ev.eventId, ["Completed"]);
    await x.killAzurite();
    await x.startAzurite();
    const answeredAt = await x.answeringAgain();
    const done = await waitFor(
      "the event Completed again, nothing active",
      async () => {
        const c = await x.status().cluster(x.cluster);
        const d = await x.status().event(ev.eventId, x.cluster);
        const recorded = d.timeline.some((t) => t.to === "Completed");
        return c.activeEvents.length === 0 && d.phase === "Completed" && recorded ? d : undefined;
      },
      30_000,
      50,
    );
    // When the surviving (or re-made) Completed transition was written.
    const completedAt = Math.max(
      ...done.timeline.filter((t) => t.to === "Completed").map((t) => Date.parse(t.at)),
    );
    const healed = Math.max(0, completedAt - answeredAt);
    await expectWithinBound(
      "Azurite restart (lost writes) -> Completed again",
      healed,
      answeredAt,
      completedAt,
    );
    expectPlannedLifecycle(fabric, markers, ev.eventId);
  });
});
