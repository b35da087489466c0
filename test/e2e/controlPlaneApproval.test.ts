import { startLocalCoordinator } from "@quiesce/functions";
import {
  type E2eCluster,
  FAST_POLICY,
  simEvent,
  startE2eCluster,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acknowledgesOf, startedWithRelaysGone } from "./support/controlPlane";

/**
 * Approval through Azure Resource Manager when no relay can: real relays, the local coordinator
 * on Azurite, and the fabric simulator's loopback ARM (reached with @azure/identity's managed
 * identity credential through the fabric's token endpoint), asserted from the fabric's timeline
 * and its ARM request log.
 */

const topology = {
  groups: [
    { kind: "availabilitySet" as const, name: "avset-web", vms: ["web-0", "web-1", "web-2"] },
    {
      kind: "scaleSetPlacementGroup" as const,
      name: "vmss-api-pg0",
      scaleSetName: "vmss-api",
      vms: 3,
    },
  ],
};
const policy = {
  maxEventsInFlight: 4,
  controlPlaneApproval: { mode: "fallback", afterSeconds: 2, leaseSeconds: 20, maxAttempts: 3 },
};

describe("control-plane approval end to end", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(topology, policy, { controlPlane: true });
  });
  afterAll(async () => {
    await e?.stop();
  });

  it("approves through ARM, before NotBefore, an event whose group's relays all died after draining", async () => {
    const { c, markers } = e;
    for (const vm of ["web-0", "web-1"]) markers.hold("drain", vm);
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-1"],
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await startedWithRelaysGone(
      c,
      ev.eventId,
      ["web-0", "web-1"],
      ["web-0", "web-1", "web-2"],
      markers,
    );
    const sim = simEvent(c.fabric, ev.eventId);
    expect(sim.startCause).toBe("approval");
    expect(sim.approvedBy).toBe("control-plane");
    const acks = acknowledgesOf(c.fabric, ev.eventId);
    expect(acks).toHaveLength(1);
    expect(acks[0]?.path).toMatch(
      /\/providers\/Microsoft\.Compute\/availabilitySets\/avset-web\/providers\/Microsoft\.Maintenance\/scheduledevents\//i,
    );
    expect(acks[0]?.principalId).toBe(c.fabric.identity.principalId);
    // The fabric starts the event on the acknowledge; the coordinator records ARM's answer
    // right after it returns: wait for that write, not for the fabric.
    const d = await waitFor(
      "the coordinator to record the control plane's approval",
      async () => {
        const x = await c.status.event(ev.eventId, c.cluster);
        return x.approval.approvedBy !== null ? x : undefined;
      },
      15_000,
    );
    expect(d.approval).toMatchObject({
      approvedBy: "control-plane",
      via: "controlPlane",
      rule: "allDrained",
    });
    expect(d.timeline.map((t) => t.reason).join("\n")).toMatch(
      /control plane elected approver \(rule allDrained, attempt 1\): no relay took the lease/,
    );
    for (const vm of ["web-0", "web-1", "web-2"]) await c.startRelay(vm);
  });

  it("replaces an approver cut off from IMDS: its lease runs out, the control plane acknowledges on the scale set", async () => {
    const { c } = e;
    const vms = ["vmss-api_0", "vmss-api_1", "vmss-api_2"];
    for (const vm of vms) c.fabric.injectFault({ vm, route: "startrequests", status: 500 });
    const ev = c.fabric.schedule({
      eventType: "Reboot",
      resources: ["vmss-api_0"],
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const done = await waitForPhase(c, ev.eventId, ["Started", "Recovering", "Completed"], 60_000);
    c.fabric.clearFaults();
    expect(done.approval.failedApprovers.length).toBeGreaterThan(0);
    expect(done.approval.via).toBe("controlPlane");
    expect(simEvent(c.fabric, ev.eventId).approvedBy).toBe("control-plane");
    const acks = acknowledgesOf(c.fabric, ev.eventId);
    expect(acks.map((a) => a.status)).toEqual([200]);
    expect(acks[0]?.path).toMatch(
      /\/virtualMachineScaleSets\/vmss-api\/providers\/Microsoft\.Maintenance\//i,
    );
  });

  it("two coordinator instances sweeping the same cluster acknowledge once", async () => {
    const { c, markers } = e;
    const second = await startLocalCoordinator({
      connectionString: c.connectionString,
      settings: {
        QUIESCE_POLICY: JSON.stringify({ default: { ...FAST_POLICY, ...policy } }),
        QUIESCE_CONTROL_PLANE: "true",
        QUIESCE_ARM_ENDPOINT: c.fabric.armUrl,
        QUIESCE_ARM_AUDIENCE: "https://management.azure.com",
      },
      sweepIntervalMs: 150,
    });
    try {
      markers.hold("drain", "web-2");
      const ev = c.fabric.schedule({
        eventType: "Freeze",
        resources: ["web-2"],
        noticeSeconds: 300,
        durationInSeconds: 1,
        startedSeconds: 1,
      });
      await startedWithRelaysGone(c, ev.eventId, ["web-2"], ["web-0", "web-1", "web-2"], markers);
      // Both instances kept sweeping while it was Ready and after: still one acknowledge.
      for (let i = 0; i < 3; i++) await second.coordinator.handlers.sweep();
      expect(acknowledgesOf(c.fabric, ev.eventId)).toHaveLength(1);
      for (const vm of ["web-0", "web-1", "web-2"]) await c.startRelay(vm);
    } finally {
      await second.stop();
    }
  });
});
