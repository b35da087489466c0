import {
  type E2eCluster,
  simEvent,
  startE2eCluster,
  startRequestsFor,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import {
  expectOneApprover,
  expectOnlyResourcesHooked,
  expectPlannedLifecycle,
  expectRecoveredAfterEnd,
} from "@quiesce/testkit/lifecycle";
import { lastEnd } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Every lifecycle path with real relays (hooks are shell commands), the local coordinator on
 * Azurite and the fabric simulator at time scale 1, asserted from the fabric's timeline and the
 * hooks' marker files.
 */

const topology = {
  groups: [
    {
      kind: "availabilitySet" as const,
      name: "avset-web",
      vms: ["web-0", "web-1", "web-2", "web-3"],
    },
    {
      kind: "scaleSetPlacementGroup" as const,
      name: "vmss-api-pg0",
      scaleSetName: "vmss-api",
      vms: 3,
    },
  ],
};

describe("event lifecycle end to end", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(topology, {
      maxEventsInFlight: 4,
      autoApprove: [{ name: "user-events", eventSources: ["User"] }],
    });
  });
  afterAll(async () => {
    await e?.stop();
  });

  it("approves a planned Freeze once, after every VM it names drained, and recovers them after it ends", async () => {
    const { c, markers } = e;
    markers.setHookSeconds("drain", "web-1", 1);
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const done = await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expect(done.approval.rule).toBe("allDrained");
    const approver = expectPlannedLifecycle(c.fabric, markers, ev.eventId);
    expect(done.approval.approvedBy).toBe(approver);
    expect(markers.vmsThatRan("drain", ev.eventId)).toEqual(["web-0", "web-1"]);
  });

  it("lets an autoApprove policy approve a User event before its drain finished", async () => {
    const { c, markers } = e;
    // The drain runs until the approval was seen, however slow the machine.
    markers.hold("drain", "vmss-api_0");
    const ev = c.fabric.schedule({
      eventType: "Reboot",
      eventSource: "User",
      resources: ["vmss-api_0"],
      noticeSeconds: 120,
      startedSeconds: 1,
    });
    try {
      await waitFor("StartRequests", () => startRequestsFor(c.fabric, ev.eventId)[0], 30_000);
    } finally {
      markers.release("drain", "vmss-api_0");
    }
    const done = await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expect(done.approval.rule).toBe("policy:user-events");
    expectOneApprover(c.fabric, ev.eventId);
    const approvedAt = (startRequestsFor(c.fabric, ev.eventId)[0] as { at: { realMs: number } }).at
      .realMs;
    const drainEnd = lastEnd(markers.runs("drain", "vmss-api_0", ev.eventId));
    expect(drainEnd).toBeTypeOf("number");
    expect(approvedAt).toBeLessThan(drainEnd as number);
    expectOnlyResourcesHooked(c.fabric, markers, ev.eventId);
    expectRecoveredAfterEnd(c.fabric, markers, ev.eventId);
    const recoverStart = markers.runs("recover", "vmss-api_0", ev.eventId)[0]?.start ?? 0;
    expect(recoverStart).toBeGreaterThanOrEqual(drainEnd as number);
  });

  it("never approves an event cancelled while a VM still drains, and still recovers every VM that drained", async () => {
    const { c, markers } = e;
    // web-3 drains until the event was cancelled, however slow the machine.
    markers.hold("drain", "web-3");
    const ev = c.fabric.schedule({
      eventType: "Redeploy",
      resources: ["web-2", "web-3"],
      noticeSeconds: 600,
    });
    let done: Awaited<ReturnType<typeof waitForPhase>>;
    try {
      await waitFor(
        "web-2 drained and web-3 draining",
        () =>
          lastEnd(markers.runs("drain", "web-2", ev.eventId)) !== undefined &&
          markers.runs("drain", "web-3", ev.eventId).length > 0,
        15_000,
      );
      c.fabric.cancel(ev.eventId);
      done = await waitForPhase(c, ev.eventId, ["Cancelled"], 15_000);
    } finally {
      markers.release("drain", "web-3");
    }
    expect(done.approval.approvedAt).toBeNull();
    await waitFor(
      "both VMs recovered",
      () =>
        ["web-2", "web-3"].every(
          (vm) => lastEnd(markers.runs("recover", vm, ev.eventId)) !== undefined,
        ),
      20_000,
    );
    expect(startRequestsFor(c.fabric, ev.eventId)).toEqual([]);
    expect(simEvent(c.fabric, ev.eventId).removalCause).toBe("cancelled");
    expectOnlyResourcesHooked(c.fabric, markers, ev.eventId);
    expectRecoveredAfterEnd(c.fabric, markers, ev.eventId);
    const web3DrainEnd = lastEnd(markers.runs("drain", "web-3", ev.eventId)) as number;
    expect(markers.runs("recover", "web-3", ev.eventId)[0]?.start).toBeGreaterThanOrEqual(
      web3DrainEnd,
    );
  });

  it("records a hardware failure (Started without Scheduled) as Unplanned, approves nothing and recovers the VM", async () => {
    const { c, markers } = e;
    const ev = c.fabric.schedule({
      eventType: "Reboot",
      resources: ["vmss-api_1"],
      startImmediately: true,
      startedSeconds: 2,
    });
    const done = await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expect(done.timeline[0]?.to, "first phase").toBe("Unplanned");
    expect(done.timeline.map((t) => t.to)).not.toContain("Approving");
    expect(done.approval.approvedAt).toBeNull();
    expect(startRequestsFor(c.fabric, ev.eventId)).toEqual([]);
    expect(simEvent(c.fabric, ev.eventId).startCause).toBe("hardwareFailure");
    expectRecoveredAfterEnd(c.fabric, markers, ev.eventId);
    for (const vm of markers.vmsThatRan("drain", ev.eventId)) expect(vm).toBe("vmss-api_1");
  });

  it("waits for a VM that Resources names only from a later incarnation, and approves once it drained too", async () => {
    const { c, markers } = e;
    // web-0 drains until web-2 was added and is draining; web-2 until web-0 has drained.
    markers.hold("drain", "web-0");
    markers.hold("drain", "web-2");
    const ev = c.fabric.schedule({
      eventType: "Reboot",
      resources: ["web-0"],
      noticeSeconds: 120,
      startedSeconds: 1,
    });
    try {
      await waitFor(
        "web-0 draining",
        () => markers.runs("drain", "web-0", ev.eventId).length > 0,
        15_000,
      );
      c.fabric.changeResources(ev.eventId, ["web-0", "web-2"]);
      await waitFor(
        "web-2 draining",
        () => markers.runs("drain", "web-2", ev.eventId).length > 0,
        15_000,
      );
      markers.release("drain", "web-0");
      await waitFor(
        "web-0 drained",
        () => lastEnd(markers.runs("drain", "web-0", ev.eventId)) !== undefined,
        15_000,
      );
    } finally {
      markers.release("drain", "web-0");
      markers.release("drain", "web-2");
    }
    const done = await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expect(done.approval.rule).toBe("allDrained");
    expect(simEvent(c.fabric, ev.eventId).resources).toEqual(["web-0", "web-2"]);
    expectPlannedLifecycle(c.fabric, markers, ev.eventId);
    const web0 = lastEnd(markers.runs("drain", "web-0", ev.eventId)) as number;
    const web2 = lastEnd(markers.runs("drain", "web-2", ev.eventId)) as number;
    expect(web2).toBeGreaterThan(web0);
  });

  it("holds a drained event while an operator hold lasts and approves it once released", async () => {
    const { c, markers } = e;
    // The drain runs until the operator's hold is in place, however slow the machine.
    markers.hold("drain", "vmss-api_2");
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["vmss-api_2"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    try {
      await waitForPhase(c, ev.eventId, ["Observed", "Draining"], 15_000);
      await c.status.operator("hold", ev.eventId, {
        cluster: c.cluster,
        reason: "e2e: change freeze",
      });
    } finally {
      markers.release("drain", "vmss-api_2");
    }
    await waitFor(
      "vmss-api_2 drained",
      () => lastEnd(markers.runs("drain", "vmss-api_2", ev.eventId)) !== undefined,
      15_000,
    );
    // Drained, reported, and still held: two active report intervals pass without StartRequests.
    const held = await waitFor(
      "the drain reported",
      async () => {
        const d = await c.status.event(ev.eventId, c.cluster);
        return d.drained.includes("vmss-api_2") ? d : null;
      },
      15_000,
    );
    expect(held.phase).not.toBe("Approving");
    const heldSince = Date.now();
    await waitFor("two report intervals", () => Date.now() - heldSince > 2_500, 5_000);
    expect(startRequestsFor(c.fabric, ev.eventId)).toEqual([]);
    await c.status.operator("release", ev.eventId, { cluster: c.cluster, reason: "e2e: done" });
    const releasedAt = Date.now();
    await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expectPlannedLifecycle(c.fabric, markers, ev.eventId);
    expect(startRequestsFor(c.fabric, ev.eventId)[0]?.at.realMs).toBeGreaterThanOrEqual(releasedAt);
  });
});
