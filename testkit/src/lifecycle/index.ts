import type { FabricSimulator, Instant } from "@quiesce/fabric-simulator";
import { expect } from "vitest";
import { groupVms, type StartRequestSeen, simEvent, startRequestsFor } from "../cluster";
import { lastEnd, type Markers } from "../markers";

/**
 * What every lifecycle path must show, read from the fabric simulator's timeline (what Azure
 * saw) and the hook marker files (what the VMs did), never from the coordinator's own account.
 */

/** Exactly one VM of the event's group sent StartRequests for it, and it started the event. */
export function expectOneApprover(fabric: FabricSimulator, eventId: string): string {
  const posts = startRequestsFor(fabric, eventId);
  const vms = [...new Set(posts.map((p) => p.vm))];
  expect(vms, `VMs that sent StartRequests for ${eventId}`).toHaveLength(1);
  const ev = simEvent(fabric, eventId);
  expect(ev.startCause).toBe("approval");
  expect(ev.approvedBy).toBe(vms[0]);
  expect(groupVms(fabric, eventId)).toContain(vms[0]);
  return vms[0] as string;
}

/** Every VM named in Resources had finished its drain before the fabric received StartRequests. */
export function expectDrainedBeforeApproval(
  fabric: FabricSimulator,
  markers: Markers,
  eventId: string,
): void {
  const first = startRequestsFor(fabric, eventId)[0];
  expect(first, `StartRequests for ${eventId}`).toMatchObject({
    at: { realMs: expect.any(Number) },
  });
  for (const vm of simEvent(fabric, eventId).resources) {
    const end = lastEnd(markers.runs("drain", vm, eventId));
    expect(end, `${vm} finished draining ${eventId}`).toBeTypeOf("number");
    expect(end as number, `${vm} drained before StartRequests`).toBeLessThanOrEqual(
      (first as StartRequestSeen).at.realMs,
    );
  }
}

/** VMs of the group that the event does not name neither drained nor recovered for it. */
export function expectOnlyResourcesHooked(
  fabric: FabricSimulator,
  markers: Markers,
  eventId: string,
): void {
  const resources = [...simEvent(fabric, eventId).resources].sort();
  expect(markers.vmsThatRan("drain", eventId)).toEqual(resources);
  for (const vm of markers.vmsThatRan("recover", eventId)) expect(resources).toContain(vm);
}

/** Every VM in Resources ran its recover hook, after the event left the document. */
export function expectRecoveredAfterEnd(
  fabric: FabricSimulator,
  markers: Markers,
  eventId: string,
  vms: readonly string[] = simEvent(fabric, eventId).resources,
): void {
  const ev = simEvent(fabric, eventId);
  expect(ev.removedAt, `${eventId} left the document`).toMatchObject({
    realMs: expect.any(Number),
  });
  const removed = (ev.removedAt as Instant).realMs;
  for (const vm of vms) {
    const runs = markers.runs("recover", vm, eventId);
    expect(runs.length, `${vm} recovered from ${eventId}`).toBeGreaterThan(0);
    for (const r of runs)
      expect(r.start, `${vm} recovered after the end`).toBeGreaterThanOrEqual(removed);
    expect(lastEnd(runs), `${vm} recover finished`).toBeTypeOf("number");
  }
}

/** The planned path: one approver after every drain, only Resources hooked, recovered after. */
export function expectPlannedLifecycle(
  fabric: FabricSimulator,
  markers: Markers,
  eventId: string,
): string {
  const approver = expectOneApprover(fabric, eventId);
  expectDrainedBeforeApproval(fabric, markers, eventId);
  expectOnlyResourcesHooked(fabric, markers, eventId);
  expectRecoveredAfterEnd(fabric, markers, eventId);
  return approver;
}
