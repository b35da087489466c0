import type { DeleteInstances } from "./commands";
import { scheduleEvent } from "./events";
import { fail, findVm, ok } from "./state";
import type { FabricState, Instant, Outcome, SimEvent } from "./types";

/**
 * Delete several instances of a scale set at once (a scale-in, or "delete instances"): one
 * Terminate per VM, all with the same NotBefore, each in its own placement group's document.
 */
export function deleteInstances(
  state: FabricState,
  cmd: DeleteInstances & { eventIds: readonly string[] },
  at: Instant,
): Outcome<SimEvent[]> {
  const wanted = cmd.scaleSet.toLowerCase();
  const groups = Object.values(state.groups).filter(
    (g) => g.scaleSetName?.toLowerCase() === wanted,
  );
  if (groups.length === 0) return fail(404, `no scale set ${cmd.scaleSet}`);
  const names: string[] = [];
  for (const n of cmd.vms) {
    const vm = findVm(state, n);
    if (!vm || !groups.some((g) => g.name === vm.group)) {
      return fail(400, `${n} is not a VM of scale set ${cmd.scaleSet}`);
    }
    if (vm.deleted) return fail(400, `${vm.name} was deleted`);
    if (names.includes(vm.name)) return fail(400, `${vm.name} is named twice`);
    const deleting = state.active.find(
      (e) => e.eventType === "Terminate" && e.resources.includes(vm.name),
    );
    if (deleting) return fail(409, `${vm.name} is already being deleted (${deleting.eventId})`);
    names.push(vm.name);
  }
  let next = state;
  const events: SimEvent[] = [];
  for (const [i, name] of names.entries()) {
    const eventId = cmd.eventIds[i];
    if (eventId === undefined) return fail(400, "one event id per VM");
    const r = scheduleEvent(
      next,
      {
        eventId,
        eventType: "Terminate",
        resources: [name],
        eventSource: cmd.eventSource,
        startImmediately: false,
        ...(cmd.noticeSeconds !== undefined ? { noticeSeconds: cmd.noticeSeconds } : {}),
      },
      at,
    );
    if (!r.ok) return r;
    next = r.value.state;
    events.push(r.value.value);
  }
  return ok(next, events);
}
