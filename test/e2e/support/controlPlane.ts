import type { LocalCluster } from "@quiesce/demo";
import type { FabricSimulator } from "@quiesce/fabric-simulator";
import type { Markers } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";

/**
 * What the control-plane end-to-end tests share: an event made Ready while no relay can be
 * elected (held by an operator while its VMs drain, then released once their relays are gone),
 * and what the fabric's ARM saw.
 */

/**
 * Holds the event, then waits until every VM in `vms` reported its drain succeeded. With
 * `heldDrains`, the caller held those VMs' drain hooks (`markers.hold`) before scheduling the
 * event: they are let go only once the operator's hold is in, so no relay can be elected before
 * it (a drain takes 0.2 s; seeing the event and holding it can take longer on a busy machine,
 * and the relay then approved the event itself).
 */
export async function drainedWhileHeld(
  c: LocalCluster,
  eventId: string,
  vms: string[],
  heldDrains?: Markers,
) {
  await waitFor(
    "the coordinator to see the event",
    () => c.status.event(eventId, c.cluster).catch(() => null),
    30_000,
  );
  await c.status.operator("hold", eventId, {
    cluster: c.cluster,
    reason: "test: drain while held",
  });
  for (const vm of vms) heldDrains?.release("drain", vm);
  await waitFor(
    `${vms.join(", ")} drained`,
    async () => {
      const d = await c.status.event(eventId, c.cluster);
      return vms.every((vm) => d.readiness.find((r) => r.vm === vm)?.drain?.status === "succeeded");
    },
    30_000,
  );
}

export async function releaseHold(c: LocalCluster, eventId: string) {
  await c.status.operator("release", eventId, { cluster: c.cluster, reason: "test: release" });
}

/**
 * Drains `vms` while the event is held, stops the relays of the whole group (`group`), releases
 * the hold, and waits for the fabric to start the event: whoever approved it, no relay could.
 */
export async function startedWithRelaysGone(
  c: LocalCluster,
  eventId: string,
  vms: string[],
  group: string[],
  heldDrains?: Markers,
) {
  await drainedWhileHeld(c, eventId, vms, heldDrains);
  for (const vm of group) await c.stopRelay(vm);
  await releaseHold(c, eventId);
  await waitFor(
    "the fabric to start the event",
    () => c.fabric.event(eventId)?.startedAt !== undefined,
    30_000,
  );
}

/** The ARM acknowledge calls naming the event, in order, with their answers. */
export function acknowledgesOf(fabric: FabricSimulator, eventId: string) {
  const id = eventId.toLowerCase();
  return fabric.arm
    .requests()
    .filter(
      (r) =>
        r.method === "POST" && r.path.toLowerCase().includes(`/scheduledevents/${id}/acknowledge`),
    );
}
