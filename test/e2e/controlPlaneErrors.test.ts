import type { ArmFaultInput } from "@quiesce/fabric-simulator";
import { type E2eCluster, simEvent, startE2eCluster } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acknowledgesOf, drainedWhileHeld, releaseHold } from "./support/controlPlane";

/**
 * What the coordinator does with each answer ARM may give its acknowledge (docs/control-plane.md,
 * "Errors"): 429 and 5xx are retried (429 after its Retry-After), a 401 once with a fresh token;
 * 403, 404 and 409 end the control plane's attempts at once; every failure is on the event, with
 * ARM's error code, for status and history. Each case is one standalone VM whose relay is gone.
 */
const VMS = [
  "solo-0",
  "solo-1",
  "solo-2",
  "solo-3",
  "solo-4",
  "solo-5",
  "solo-6",
  "solo-7",
  "solo-8",
];
const topology = { groups: [{ kind: "standalone" as const, vms: VMS }] };
const policy = {
  maxEventsInFlight: 8,
  controlPlaneApproval: { mode: "fallback", afterSeconds: 1, leaseSeconds: 60, maxAttempts: 2 },
};

describe("control-plane approval: ARM's answers", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(topology, policy, { controlPlane: true });
  });
  afterAll(async () => {
    await e?.stop();
  });

  /** An event on `vm` made Ready with its relay gone, and the fault armed before the release. */
  async function readyWithFault(vm: string, fault?: ArmFaultInput) {
    const { c, markers } = e;
    markers.hold("drain", vm);
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: [vm],
      noticeSeconds: 600,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await drainedWhileHeld(c, ev.eventId, [vm], markers);
    await c.stopRelay(vm);
    if (fault)
      c.fabric.arm.injectFault({ ...fault, pathContains: `/scheduledevents/${ev.eventId}` });
    await releaseHold(c, ev.eventId);
    return ev.eventId;
  }

  const approvedViaArm = (id: string) =>
    waitFor(
      `${id} started by the control plane`,
      async () => {
        if (simEvent(e.c.fabric, id).approvedBy === "control-plane") return true;
        // Thrown, not returned: a timeout then says where the event stood.
        const d = await e.c.status.event(id, e.c.cluster);
        const acks = acknowledgesOf(e.c.fabric, id).map((a) => a.status);
        throw new Error(
          `${d.phase}: ${d.waitingFor}; acknowledges answered ${acks.join(", ") || "none"}`,
        );
      },
      30_000,
    );

  const gaveUp = (id: string) =>
    waitFor(
      `the control plane to give up on ${id}`,
      async () => {
        const d = await e.c.status.event(id, e.c.cluster);
        // History is appended after the event row it records is committed (decisionWriter.ts):
        // wait for both, or a read between the two writes sees gaveUp without its history row.
        const recorded = d.timeline.some((t) => t.reason.includes("no more attempts"));
        return d.approval.controlPlane?.gaveUp && recorded ? d : null;
      },
      30_000,
    );

  it("429: waits its Retry-After, then acknowledges", async () => {
    const id = await readyWithFault("solo-0", { status: 429, retryAfterSeconds: 1 });
    await approvedViaArm(id);
    const acks = acknowledgesOf(e.c.fabric, id);
    expect(acks.map((a) => a.status)).toEqual([429, 200]);
    expect((acks[1]?.at.realMs ?? 0) - (acks[0]?.at.realMs ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it("503: retries, then acknowledges", async () => {
    const id = await readyWithFault("solo-1", { status: 503, count: 2 });
    await approvedViaArm(id);
    expect(acknowledgesOf(e.c.fabric, id).map((a) => a.status)).toEqual([503, 503, 200]);
  });

  it("401 once: asks for a fresh token, retries once, acknowledges", async () => {
    const id = await readyWithFault("solo-2", { status: 401, count: 1 });
    await approvedViaArm(id);
    expect(acknowledgesOf(e.c.fabric, id).map((a) => a.status)).toEqual([401, 200]);
  });

  it("500 on every try: each attempt retries, the next sweep tries again, and it gives up after maxAttempts", async () => {
    const id = await readyWithFault("solo-6", { status: 500, count: 1000 });
    const d = await gaveUp(id);
    expect(d.approval.controlPlane).toMatchObject({ attempts: 2, lastError: { status: 500 } });
    const statuses = acknowledgesOf(e.c.fabric, id).map((a) => a.status);
    expect(statuses.length).toBeGreaterThan(2); // retried within each attempt
    expect(new Set(statuses)).toEqual(new Set([500]));
    e.c.fabric.arm.clearFaults();
  });

  it("405 NotImplemented (a region without the feature): given up at once, as notSupportedInRegion", async () => {
    e.c.fabric.arm.setMaintenance({ supportedInRegion: false });
    try {
      const id = await readyWithFault("solo-7");
      const d = await gaveUp(id);
      expect(d.approval.controlPlane).toMatchObject({
        attempts: 1,
        lastError: { status: 405, code: "NotImplemented", outcome: "notSupportedInRegion" },
      });
      expect(d.timeline.map((t) => t.reason).join("\n")).toMatch(/notSupportedInRegion.*region/);
      expect(d.waitingFor).toMatch(/control plane gave up.*region/);
      expect(acknowledgesOf(e.c.fabric, id).map((a) => a.status)).toEqual([405]);
      // Not started by an approval (NotBefore, on the scaled clock, may have come since).
      expect(simEvent(e.c.fabric, id).approvedBy).toBeUndefined();
    } finally {
      e.c.fabric.arm.setMaintenance({});
    }
  });

  it("207 InvalidScheduledEventId is not an approval: retried within maxAttempts, then given up", async () => {
    e.c.fabric.arm.setMaintenance({ knowsEvents: false, unknownEventStatus: 207 });
    try {
      const id = await readyWithFault("solo-8");
      const d = await gaveUp(id);
      expect(d.approval.approvedBy).toBeNull();
      expect(d.approval.controlPlane).toMatchObject({
        attempts: 2,
        lastError: { status: 207, code: "InvalidScheduledEventId", outcome: "eventNotFound" },
      });
      expect(d.timeline.map((t) => t.reason).join("\n")).toMatch(
        /retried when the control plane is next elected/,
      );
      expect(acknowledgesOf(e.c.fabric, id).map((a) => a.status)).toEqual([207, 207]);
      expect(simEvent(e.c.fabric, id).approvedBy).toBeUndefined();
    } finally {
      e.c.fabric.arm.setMaintenance({});
    }
  });

  it.each([
    [403, "solo-3"],
    [404, "solo-4"],
    [409, "solo-5"],
  ] as const)(
    "%i: surfaced at once with ARM's code, on the event and in its history; no retry",
    async (status, vm) => {
      const id = await readyWithFault(vm, { status });
      const d = await gaveUp(id);
      expect(d.approval.controlPlane?.lastError?.status).toBe(status);
      expect(d.approval.controlPlane?.lastError?.code).toMatch(/^[A-Za-z]+$/);
      expect(d.timeline.map((t) => t.reason).join("\n")).toContain(
        `ARM ${status} ${d.approval.controlPlane?.lastError?.code}`,
      );
      expect(d.waitingFor).toMatch(/control plane gave up/);
      expect(acknowledgesOf(e.c.fabric, id).map((a) => a.status)).toEqual([status]);
      expect(simEvent(e.c.fabric, id).phase).toBe("Scheduled");
    },
  );
});
