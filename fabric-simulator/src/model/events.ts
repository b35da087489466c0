import { isAdvisory } from "@quiesce/protocol/imds";
import { approvedAutomatically } from "../topology/scheduledEventsPolicy";
import type { GroupRecord } from "../topology/topology";
import { advisoryEndsAtMs, supersededByPreempt } from "./advisory";
import type { ChangeResources, JumpIncarnation, ScheduleEvent } from "./commands";
import { defaultDescription, defaultDurationInSeconds, defaultNoticeSeconds } from "./defaults";
import {
  fail,
  findEvent,
  findVm,
  ok,
  publish,
  removeEvent,
  replaceActive,
  resolveResources,
  started,
} from "./state";
import { publishReleasing } from "./terminate";
import type { FabricState, Instant, Outcome, SimEvent } from "./types";

/** What Azure decides to do to a group's events, as the control API tells it. */

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
  if (resolved.value.length === 0) return fail(400, `group ${group.name} has no live VM left`);
  if (cmd.eventType === "Terminate" && resolved.value.length !== 1) return oneVmPerTerminate();
  const advisory = isAdvisory({ EventType: cmd.eventType });
  if (advisory && cmd.startImmediately)
    return fail(400, `a ${cmd.eventType} is advisory: it is never Started`);

  // A user's Reboot / Redeploy under an auto-approving policy is created Started ("only events
  // with EventStatus:Started and EventStatus:Completed are created"), like a hardware failure.
  const autoApproved = approvedAutomatically(
    group.scheduledEventsPolicy,
    cmd.eventType,
    cmd.eventSource,
  );
  const immediate = !advisory && (cmd.startImmediately || autoApproved);
  const durationInSeconds = cmd.durationInSeconds ?? defaultDurationInSeconds(cmd.eventType);
  const startedForMs =
    (cmd.startedSeconds ?? Math.max(durationInSeconds, state.options.minStartedSeconds)) * 1000;
  const noticeMs = (cmd.noticeSeconds ?? defaultNoticeSeconds(cmd.eventType)) * 1000;
  // NotBefore has whole-second precision on the wire; auto-start must match what VMs were shown.
  const notBeforeMs = Math.ceil((at.simMs + noticeMs) / 1000) * 1000;
  const base: SimEvent = {
    eventId: cmd.eventId,
    group: group.name,
    eventType: cmd.eventType,
    resources: resolved.value,
    eventSource: cmd.eventSource,
    description: cmd.description ?? defaultDescription(cmd.eventType, cmd.eventSource),
    durationInSeconds,
    notBeforeMs: immediate ? null : notBeforeMs,
    startedForMs,
    // An advisory event never starts: it leaves the document at this instant instead (advisory.ts).
    ...(advisory ? { endsAtMs: advisoryEndsAtMs(at.simMs, durationInSeconds, notBeforeMs) } : {}),
    requireAllApprovals: cmd.requireAllApprovals ?? state.options.requireAllApprovals,
    phase: "Scheduled",
    scheduledAt: at,
    approvals: [],
    resourcesHistory: [],
  };
  const event = cmd.startImmediately
    ? started(base, at, "hardwareFailure")
    : immediate
      ? started(base, at, "autoApproved")
      : base;
  // A Preempt takes the rebalance recommendations of its VMs out of the same new document.
  const preempting = supersededByPreempt(state, event, at);
  let next: FabricState = { ...preempting.state, active: [...preempting.state.active, event] };
  const superseded = preempting.superseded.length
    ? `; ${preempting.superseded.join(",")} superseded by it`
    : "";
  next = publish(
    next,
    group.name,
    (event.startCause === "hardwareFailure"
      ? `hardware failure: ${event.eventId} ${event.eventType} Started without notice`
      : event.startCause === "autoApproved"
        ? `auto-approved: ${event.eventId} ${event.eventType} by ${event.eventSource} Started without Scheduled`
        : `scheduled ${event.eventId} ${event.eventType}`) + superseded,
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
  // A cancelled Terminate no longer holds the scale set's approved ones.
  const next = publishReleasing(
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
  if (isAdvisory({ EventType: e.eventType }))
    return fail(409, `event ${e.eventId} is a ${e.eventType}: advisory, it is never Started`);
  const next = publishReleasing(
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
  if (e.eventType === "Terminate" && resolved.value.length !== 1) return oneVmPerTerminate();
  let next = replaceActive(state, { ...e, resources: resolved.value });
  next = publish(
    next,
    e.group,
    `Resources of ${e.eventId} changed to ${resolved.value.join(",")}`,
    at,
  );
  const incarnation = next.groups[e.group]?.incarnation ?? 0;
  const changed = findEvent(next, e.eventId) as SimEvent;
  const recorded = {
    ...changed,
    resourcesHistory: [...changed.resourcesHistory, { incarnation, resources: resolved.value, at }],
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

/** Azure creates one Terminate per deleted VM (terminate notifications); several go together. */
const oneVmPerTerminate = () =>
  fail(400, "a Terminate event names one VM: delete several with deleteInstances (one each)");
