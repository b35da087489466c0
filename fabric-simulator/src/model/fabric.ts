import { eventKey, type StartRequestsBody } from "@quiesce/shared";
import { expandTopology, type GroupRecord, type Topology, type VmRecord } from "../topology";
import type { ChangeResources, InjectFault, JumpIncarnation, ScheduleEvent } from "./commands";
import {
  defaultDescription,
  defaultDurationInSeconds,
  defaultNoticeSeconds,
  evicts,
} from "./defaults";
import { renderDocument } from "./document";
import type {
  FabricOptions,
  FabricState,
  Fault,
  FaultRoute,
  Instant,
  Outcome,
  SimEvent,
  StartRequestOutcome,
  TimelineEntry,
} from "./types";

/**
 * The fabric's functional core: every function takes the state and an instant and returns the
 * next state. No clock, no I/O, no randomness (event ids come in with the command), so the
 * shell can be driven by a real scaled clock or stepped by a test.
 */

export const DEFAULT_OPTIONS: FabricOptions = {
  requireAllApprovals: false,
  minStartedSeconds: 10,
  initialIncarnation: 1,
  deleteOnEviction: true,
};

const fail = (status: 400 | 404 | 409, error: string) => ({ ok: false, status, error }) as const;
const ok = <T>(state: FabricState, value: T) => ({ ok: true, state, value }) as const;

export function createFabric(
  topology: Topology,
  options: Partial<FabricOptions> = {},
): Outcome<FabricState> {
  const opts: FabricOptions = {
    requireAllApprovals: options.requireAllApprovals ?? DEFAULT_OPTIONS.requireAllApprovals,
    minStartedSeconds: options.minStartedSeconds ?? DEFAULT_OPTIONS.minStartedSeconds,
    initialIncarnation: options.initialIncarnation ?? DEFAULT_OPTIONS.initialIncarnation,
    deleteOnEviction: options.deleteOnEviction ?? DEFAULT_OPTIONS.deleteOnEviction,
  };
  if (
    !(opts.minStartedSeconds >= 0) ||
    !Number.isInteger(opts.initialIncarnation) ||
    opts.initialIncarnation < 0
  ) {
    return fail(
      400,
      "minStartedSeconds must be >= 0 and initialIncarnation a non-negative integer",
    );
  }
  const expanded = expandTopology(topology, opts.initialIncarnation);
  if (!expanded.ok) return fail(400, expanded.error);
  const state: FabricState = {
    options: opts,
    topology,
    vms: expanded.value.vms,
    groups: expanded.value.groups,
    active: [],
    past: [],
    faults: [],
    timeline: [],
    nextSeq: 1,
    nextFaultId: 1,
  };
  return ok(state, state);
}

/** Back to the topology's first state: no events, no faults, empty timeline. */
export function resetFabric(state: FabricState): FabricState {
  const r = createFabric(state.topology, state.options);
  if (!r.ok) throw new Error(`topology that loaded once failed to reload: ${r.error}`);
  return r.value;
}

/** Add groups (and their VMs) to a running fabric; names must not collide with existing ones. */
export function addGroups(state: FabricState, groups: Topology["groups"]): Outcome<string[]> {
  const expanded = expandTopology({ ...state.topology, groups }, state.options.initialIncarnation);
  if (!expanded.ok) return fail(400, expanded.error);
  const existing = new Set(Object.keys(state.vms).map((n) => n.toLowerCase()));
  for (const name of Object.keys(expanded.value.vms)) {
    if (existing.has(name.toLowerCase())) return fail(409, `VM ${name} already exists`);
  }
  for (const name of Object.keys(expanded.value.groups)) {
    if (state.groups[name]) return fail(409, `group ${name} already exists`);
  }
  return ok(
    {
      ...state,
      topology: { ...state.topology, groups: [...state.topology.groups, ...groups] },
      vms: { ...state.vms, ...expanded.value.vms },
      groups: { ...state.groups, ...expanded.value.groups },
    },
    Object.keys(expanded.value.vms),
  );
}

function append(state: FabricState, entry: DistributiveOmit<TimelineEntry, "seq">): FabricState {
  return {
    ...state,
    timeline: [...state.timeline, { seq: state.nextSeq, ...entry } as TimelineEntry],
    nextSeq: state.nextSeq + 1,
  };
}
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Every change to a group's events is one new document: bump the incarnation, record it. */
function publish(state: FabricState, group: string, reason: string, at: Instant): FabricState {
  const g = state.groups[group];
  if (!g) return state;
  const bumped: FabricState = {
    ...state,
    groups: { ...state.groups, [group]: { ...g, incarnation: g.incarnation + 1 } },
  };
  const document = renderDocument(bumped, group);
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

function findVm(state: FabricState, name: string): VmRecord | undefined {
  const exact = state.vms[name];
  if (exact) return exact;
  const wanted = name.toLowerCase();
  return Object.values(state.vms).find((v) => v.name.toLowerCase() === wanted);
}

/** Resolve names (case-insensitively) to live VMs of one group. */
function resolveResources(
  state: FabricState,
  group: GroupRecord,
  names: readonly string[],
): { ok: true; resources: string[] } | { ok: false; error: string } {
  const resources: string[] = [];
  for (const n of names) {
    const vm = findVm(state, n);
    if (!vm || vm.group !== group.name) {
      return { ok: false, error: `${n} is not a VM of group ${group.name}` };
    }
    if (vm.deleted) return { ok: false, error: `${vm.name} was deleted` };
    if (!resources.includes(vm.name)) resources.push(vm.name);
  }
  return { ok: true, resources };
}

function findEvent(state: FabricState, eventId: string): SimEvent | undefined {
  const key = eventKey(eventId);
  return (
    state.active.find((e) => eventKey(e.eventId) === key) ??
    state.past.find((e) => eventKey(e.eventId) === key)
  );
}

function replaceActive(state: FabricState, event: SimEvent): FabricState {
  return { ...state, active: state.active.map((e) => (e.eventId === event.eventId ? event : e)) };
}

function started(e: SimEvent, at: Instant, cause: SimEvent["startCause"]): SimEvent {
  return {
    ...e,
    phase: "Started",
    startedAt: at,
    startCause: cause,
    endsAtMs: at.simMs + e.startedForMs,
  };
}

/** Take an event out of its group's document (the caller publishes the new document). */
function removeEvent(
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
function deleteEvicted(state: FabricState, event: SimEvent, at: Instant): FabricState {
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

export function scheduleEvent(
  state: FabricState,
  cmd: ScheduleEvent & { eventId: string },
  at: Instant,
): Outcome<SimEvent> {
  if (findEvent(state, cmd.eventId)) return fail(409, `event ${cmd.eventId} already exists`);
  let groupName = cmd.group;
  if (groupName === undefined) {
    const first = cmd.resources?.[0];
    if (first === undefined) return fail(400, "give a group, resources, or both");
    const vm = findVm(state, first);
    if (!vm) return fail(400, `${first} is not a VM of this fabric`);
    groupName = vm.group;
  }
  const group = state.groups[groupName];
  if (!group) return fail(400, `no group ${groupName}`);
  const names = cmd.resources ?? group.vms.filter((n) => !state.vms[n]?.deleted);
  const resolved = resolveResources(state, group, names);
  if (!resolved.ok) return fail(400, resolved.error);
  if (resolved.resources.length === 0) return fail(400, `group ${group.name} has no live VM left`);

  const durationInSeconds = cmd.durationInSeconds ?? defaultDurationInSeconds(cmd.eventType);
  const startedForMs =
    (cmd.startedSeconds ?? Math.max(durationInSeconds, state.options.minStartedSeconds)) * 1000;
  const noticeMs = (cmd.noticeSeconds ?? defaultNoticeSeconds(cmd.eventType)) * 1000;
  const base: SimEvent = {
    eventId: cmd.eventId,
    group: group.name,
    eventType: cmd.eventType,
    resources: resolved.resources,
    eventSource: cmd.eventSource,
    description: cmd.description ?? defaultDescription(cmd.eventType, cmd.eventSource),
    durationInSeconds,
    // NotBefore has whole-second precision on the wire; auto-start must match what VMs were shown.
    notBeforeMs: cmd.startImmediately ? null : Math.ceil((at.simMs + noticeMs) / 1000) * 1000,
    startedForMs,
    requireAllApprovals: cmd.requireAllApprovals ?? state.options.requireAllApprovals,
    phase: "Scheduled",
    scheduledAt: at,
    approvals: [],
    resourcesHistory: [],
  };
  const event = cmd.startImmediately ? started(base, at, "hardwareFailure") : base;
  let next: FabricState = { ...state, active: [...state.active, event] };
  next = publish(
    next,
    group.name,
    cmd.startImmediately
      ? `hardware failure: ${event.eventId} ${event.eventType} Started without notice`
      : `scheduled ${event.eventId} ${event.eventType}`,
    at,
  );
  const incarnation = next.groups[group.name]?.incarnation ?? 0;
  const recorded = {
    ...event,
    resourcesHistory: [{ incarnation, resources: event.resources, at }],
  };
  return ok(replaceActive(next, recorded), recorded);
}

/** Azure cancels rarely, and only while Scheduled: the event leaves the document, nothing happens. */
export function cancelEvent(state: FabricState, eventId: string, at: Instant): Outcome<SimEvent> {
  const e = findEvent(state, eventId);
  if (!e) return fail(404, `no event ${eventId}`);
  if (e.phase !== "Scheduled")
    return fail(409, `event ${e.eventId} is ${e.phase}; only a Scheduled event can be cancelled`);
  const next = publish(
    removeEvent(state, e, "cancelled", at),
    e.group,
    `cancelled ${e.eventId}`,
    at,
  );
  return ok(next, findEvent(next, e.eventId) as SimEvent);
}

/** The fabric decides to go now (as if NotBefore had passed), whatever the approvals. */
export function startEventNow(state: FabricState, eventId: string, at: Instant): Outcome<SimEvent> {
  const e = findEvent(state, eventId);
  if (!e) return fail(404, `no event ${eventId}`);
  if (e.phase !== "Scheduled") return fail(409, `event ${e.eventId} is ${e.phase}, not Scheduled`);
  const next = publish(
    replaceActive(state, started(e, at, "control")),
    e.group,
    `started ${e.eventId} by control`,
    at,
  );
  return ok(next, findEvent(next, e.eventId) as SimEvent);
}

export function changeResources(
  state: FabricState,
  cmd: ChangeResources,
  at: Instant,
): Outcome<SimEvent> {
  const e = findEvent(state, cmd.eventId);
  if (!e) return fail(404, `no event ${cmd.eventId}`);
  if (e.phase === "Removed") return fail(409, `event ${e.eventId} already left the document`);
  const group = state.groups[e.group] as GroupRecord;
  const resolved = resolveResources(state, group, cmd.resources);
  if (!resolved.ok) return fail(400, resolved.error);
  let next = replaceActive(state, { ...e, resources: resolved.resources });
  next = publish(
    next,
    e.group,
    `Resources of ${e.eventId} changed to ${resolved.resources.join(",")}`,
    at,
  );
  const incarnation = next.groups[e.group]?.incarnation ?? 0;
  const changed = findEvent(next, e.eventId) as SimEvent;
  const recorded = {
    ...changed,
    resourcesHistory: [
      ...changed.resourcesHistory,
      { incarnation, resources: resolved.resources, at },
    ],
  };
  return ok(replaceActive(next, recorded), recorded);
}

/** Azure's incarnation can skip numbers (changes a VM never observed); the events stay the same. */
export function jumpIncarnation(
  state: FabricState,
  cmd: JumpIncarnation,
  at: Instant,
): Outcome<number> {
  const g = state.groups[cmd.group];
  if (!g) return fail(404, `no group ${cmd.group}`);
  const jumped: FabricState = {
    ...state,
    groups: { ...state.groups, [g.name]: { ...g, incarnation: g.incarnation + cmd.by - 1 } },
  };
  const next = publish(jumped, g.name, `incarnation jumped by ${cmd.by}`, at);
  return ok(next, next.groups[g.name]?.incarnation ?? 0);
}

/**
 * A VM's `POST StartRequests`. Any VM of the group may approve any event of its document, and the
 * approval lets the event proceed for all its Resources (unless the event waits for every
 * affected VM, as shared hosts do). Ids the VM cannot see are accepted and ignored, as Azure does.
 */
export function startRequests(
  state: FabricState,
  vmName: string,
  body: StartRequestsBody,
  at: Instant,
): Outcome<ReadonlyArray<{ eventId: string; outcome: StartRequestOutcome }>> {
  const vm = state.vms[vmName];
  if (!vm || vm.deleted) return fail(404, `no VM ${vmName}`);
  let next = state;
  const outcomes: Array<{ eventId: string; outcome: StartRequestOutcome }> = [];
  const startedIds: string[] = [];
  for (const { EventId } of body.StartRequests) {
    const key = eventKey(EventId);
    const e = next.active.find((x) => x.group === vm.group && eventKey(x.eventId) === key);
    if (!e) {
      outcomes.push({ eventId: EventId, outcome: "unknown" });
      continue;
    }
    if (e.phase === "Started") {
      outcomes.push({ eventId: EventId, outcome: "alreadyStarted" });
      continue;
    }
    const first = e.approvals.length === 0;
    const approved: SimEvent = {
      ...e,
      approvals: [...e.approvals, { vm: vm.name, at }],
      ...(first ? { approvedAt: at, approvedBy: vm.name } : {}),
    };
    const allIn = approved.resources.every((r) => approved.approvals.some((a) => a.vm === r));
    if (!approved.requireAllApprovals || allIn) {
      next = replaceActive(next, started(approved, at, "approval"));
      startedIds.push(e.eventId);
      outcomes.push({ eventId: EventId, outcome: "approved" });
    } else {
      next = replaceActive(next, approved);
      outcomes.push({ eventId: EventId, outcome: "waitingForOthers" });
    }
  }
  next = append(next, {
    kind: "startRequests",
    vm: vm.name,
    group: vm.group,
    eventIds: body.StartRequests.map((r) => r.EventId),
    outcomes,
    at,
  });
  if (startedIds.length > 0) {
    next = publish(next, vm.group, `started ${startedIds.join(",")} on approval by ${vm.name}`, at);
  }
  return ok(next, outcomes);
}

interface Due {
  readonly atMs: number;
  readonly event: SimEvent;
  readonly kind: "start" | "remove";
}

/** The earliest due transition; on a tie, one of `preferGroup` so a group's batch stays whole. */
function nextDue(state: FabricState, nowMs: number, preferGroup?: string): Due | undefined {
  let best: Due | undefined;
  for (const e of state.active) {
    const due: Due | undefined =
      e.phase === "Scheduled" && e.notBeforeMs !== null && e.notBeforeMs <= nowMs
        ? { atMs: e.notBeforeMs, event: e, kind: "start" }
        : e.phase === "Started" && e.endsAtMs !== undefined && e.endsAtMs <= nowMs
          ? { atMs: e.endsAtMs, event: e, kind: "remove" }
          : undefined;
    if (!due) continue;
    if (
      !best ||
      due.atMs < best.atMs ||
      (due.atMs === best.atMs &&
        due.event.group === preferGroup &&
        best.event.group !== preferGroup)
    ) {
      best = due;
    }
  }
  return best;
}

/**
 * Let simulated time reach `now`: events past NotBefore start, Started events past their duration
 * leave. Each transition is stamped with the simulated instant it was due (not when it was
 * noticed), so the timeline does not depend on how often the shell ticks. Transitions due at the
 * same instant in the same group share one new document, as Azure publishes them together.
 */
export function advance(state: FabricState, now: Instant): FabricState {
  let next = expireFaults(state, now.simMs);
  for (;;) {
    const due = nextDue(next, now.simMs);
    if (!due) return next;
    const at: Instant = { simMs: due.atMs, realMs: now.realMs };
    const batch: Due[] = [];
    for (
      let d: Due | undefined = due;
      d && d.atMs === due.atMs && d.event.group === due.event.group;
    ) {
      batch.push(d);
      next =
        d.kind === "start"
          ? replaceActive(next, started(d.event, at, "notBefore"))
          : removeEvent(next, d.event, "completed", at);
      const after = nextDue(next, now.simMs, due.event.group);
      d =
        after && after.atMs === due.atMs && after.event.group === due.event.group
          ? after
          : undefined;
    }
    const reason = batch
      .map((d) =>
        d.kind === "start"
          ? `${d.event.eventId} Started at NotBefore`
          : `${d.event.eventId} completed`,
      )
      .join("; ");
    next = publish(next, due.event.group, reason, at);
    for (const d of batch) if (d.kind === "remove") next = deleteEvicted(next, d.event, at);
  }
}

function expireFaults(state: FabricState, nowMs: number): FabricState {
  const live = state.faults.filter((f) => f.untilMs === undefined || f.untilMs > nowMs);
  return live.length === state.faults.length ? state : { ...state, faults: live };
}

export function injectFault(state: FabricState, cmd: InjectFault, at: Instant): Outcome<Fault[]> {
  let vms: string[];
  if (cmd.vm !== undefined) {
    const vm = findVm(state, cmd.vm);
    if (!vm) return fail(404, `no VM ${cmd.vm}`);
    vms = [vm.name];
  } else {
    const g = state.groups[cmd.group as string];
    if (!g) return fail(404, `no group ${cmd.group}`);
    vms = [...g.vms];
  }
  let next = state;
  const added: Fault[] = [];
  for (const vm of vms) {
    const fault: Fault = {
      id: next.nextFaultId,
      vm,
      route: cmd.route,
      ...(cmd.status !== undefined ? { status: cmd.status } : {}),
      ...(cmd.latencyMs !== undefined ? { latencyMs: cmd.latencyMs } : {}),
      ...(cmd.count !== undefined ? { remaining: cmd.count } : {}),
      ...(cmd.durationSeconds !== undefined
        ? { untilMs: at.simMs + cmd.durationSeconds * 1000 }
        : {}),
      served: 0,
    };
    added.push(fault);
    next = { ...next, faults: [...next.faults, fault], nextFaultId: next.nextFaultId + 1 };
    next = append(next, { kind: "faultInjected", vm, detail: describeFault(fault), at });
  }
  return ok(next, added);
}

function describeFault(f: Fault): string {
  const what = [
    f.status !== undefined ? `HTTP ${f.status}` : "",
    f.latencyMs !== undefined ? `+${f.latencyMs} ms` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  const span = [
    f.remaining !== undefined ? `for ${f.remaining} requests` : "",
    f.untilMs !== undefined ? `until ${new Date(f.untilMs).toISOString()} (simulated)` : "",
  ]
    .filter(Boolean)
    .join(" or ");
  return `${what} on ${f.route} IMDS requests ${span || "until cleared"}`;
}

export function clearFaults(state: FabricState, vm: string | undefined, at: Instant): FabricState {
  const faults = vm === undefined ? [] : state.faults.filter((f) => f.vm !== vm);
  return append(
    { ...state, faults },
    {
      kind: "faultsCleared",
      ...(vm !== undefined ? { vm } : {}),
      detail: vm === undefined ? "all faults cleared" : `faults of ${vm} cleared`,
      at,
    },
  );
}

export type ImdsRoute = Exclude<FaultRoute, "any">;

/**
 * What the faults say about one IMDS request: the first matching error status and the largest
 * matching latency; every matching fault counts the request against its `count`. A request
 * answered with an injected error goes on the timeline (`faultServed`), so a test can tell a
 * StartRequests that never reached the fabric from one that was never sent.
 */
export function takeFault(
  state: FabricState,
  vm: string,
  route: ImdsRoute,
  at: Instant,
): { state: FabricState; status?: number; latencyMs?: number } {
  if (state.faults.length === 0) return { state };
  const nowMs = at.simMs;
  let status: number | undefined;
  let latencyMs: number | undefined;
  let touched = false;
  const faults: Fault[] = [];
  for (const f of state.faults) {
    const live = f.untilMs === undefined || f.untilMs > nowMs;
    if (f.vm !== vm || !live || (f.route !== "any" && f.route !== route)) {
      if (live) faults.push(f);
      continue;
    }
    touched = true;
    if (status === undefined && f.status !== undefined) status = f.status;
    if (f.latencyMs !== undefined) latencyMs = Math.max(latencyMs ?? 0, f.latencyMs);
    const remaining = f.remaining === undefined ? undefined : f.remaining - 1;
    if (remaining === undefined || remaining > 0) {
      faults.push({
        ...f,
        served: f.served + 1,
        ...(remaining !== undefined ? { remaining } : {}),
      });
    }
  }
  if (!touched && faults.length === state.faults.length) return { state };
  const next: FabricState = { ...state, faults };
  return {
    state:
      status === undefined
        ? next
        : append(next, { kind: "faultServed", vm, detail: `HTTP ${status} on ${route}`, at }),
    ...(status !== undefined ? { status } : {}),
    ...(latencyMs !== undefined ? { latencyMs } : {}),
  };
}
