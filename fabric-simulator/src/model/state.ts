import type { Result } from "@quiesce/protocol";
import { eventKey } from "@quiesce/protocol/imds";
import type { GroupRecord, VmRecord } from "../topology/topology";
import { evicts } from "./defaults";
import { FABRIC_VIEW, renderDocument } from "./document";
import type { FabricState, Instant, Refusal, SimEvent, TimelineEntry } from "./types";

/** The small steps every fabric transition is made of; each returns a new state. */

export const fail = (status: Refusal["status"], message: string) =>
  ({ ok: false, error: { status, message } }) as const;
export const ok = <T>(state: FabricState, value: T) =>
  ({ ok: true, value: { state, value } }) as const;

export function append(
  state: FabricState,
  entry: DistributiveOmit<TimelineEntry, "seq">,
): FabricState {
  return {
    ...state,
    timeline: [...state.timeline, { seq: state.nextSeq, ...entry } as TimelineEntry],
    nextSeq: state.nextSeq + 1,
  };
}
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Every change to a group's events is one new document: bump the incarnation, record it. */
export function publish(
  state: FabricState,
  group: string,
  reason: string,
  at: Instant,
): FabricState {
  const g = state.groups[group];
  if (!g) return state;
  const bumped: FabricState = {
    ...state,
    groups: { ...state.groups, [group]: { ...g, incarnation: g.incarnation + 1 } },
  };
  const document = renderDocument(bumped, group, FABRIC_VIEW);
  return append(bumped, {
    kind: "document",
    group,
    incarnation: document.DocumentIncarnation,
    reason,
    eventIds: document.Events.map((e) => e.EventId),
    document,
    at,
  });
}

export function findVm(state: FabricState, name: string): VmRecord | undefined {
  const exact = state.vms[name];
  if (exact) return exact;
  const wanted = name.toLowerCase();
  return Object.values(state.vms).find((v) => v.name.toLowerCase() === wanted);
}

/** Resolve names (case-insensitively) to live VMs of one group. */
export function resolveResources(
  state: FabricState,
  group: GroupRecord,
  names: readonly string[],
): Result<string[]> {
  const resources: string[] = [];
  for (const n of names) {
    const vm = findVm(state, n);
    if (!vm || vm.group !== group.name) {
      return { ok: false, error: `${n} is not a VM of group ${group.name}` };
    }
    if (vm.deleted) return { ok: false, error: `${vm.name} was deleted` };
    if (!resources.includes(vm.name)) resources.push(vm.name);
  }
  return { ok: true, value: resources };
}

export function findEvent(state: FabricState, eventId: string): SimEvent | undefined {
  const key = eventKey(eventId);
  return (
    state.active.find((e) => eventKey(e.eventId) === key) ??
    state.past.find((e) => eventKey(e.eventId) === key)
  );
}

export function replaceActive(state: FabricState, event: SimEvent): FabricState {
  return { ...state, active: state.active.map((e) => (e.eventId === event.eventId ? event : e)) };
}

export function started(e: SimEvent, at: Instant, cause: SimEvent["startCause"]): SimEvent {
  return {
    ...e,
    phase: "Started",
    startedAt: at,
    startCause: cause,
    endsAtMs: at.simMs + e.startedForMs,
  };
}

/** Take an event out of its group's document (the caller publishes the new document). */
export function removeEvent(
  state: FabricState,
  event: SimEvent,
  cause: SimEvent["removalCause"],
  at: Instant,
): FabricState {
  const gone: SimEvent = { ...event, phase: "Removed", removedAt: at, removalCause: cause };
  return {
    ...state,
    active: state.active.filter((e) => e.eventId !== event.eventId),
    past: [...state.past, gone],
  };
}

/** A completed Preempt or Terminate deleted its VMs, as Azure does: their IMDS goes away. */
export function deleteEvicted(state: FabricState, event: SimEvent, at: Instant): FabricState {
  if (!evicts(event.eventType) || !state.options.deleteOnEviction) return state;
  let next = state;
  for (const name of event.resources) {
    const vm = next.vms[name];
    if (!vm || vm.deleted) continue;
    next = { ...next, vms: { ...next.vms, [name]: { ...vm, deleted: true } } };
    next = append(next, {
      kind: "vmDeleted",
      vm: name,
      detail: `${event.eventType} ${event.eventId} completed`,
      at,
    });
  }
  return next;
}
