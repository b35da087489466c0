import { eventKey, namesVm, notBeforeMs, type ScheduledEvent } from "../imds/scheduledEvents";
import type { Directive, RelayReport } from "../protocol/v1";
import { budgetOrder } from "./budgetOrder";
import { reportInterval } from "./cadence";
import { dict, withEntry } from "./dict";
import { type Candidate, DELETES_VMS, evaluateEvent, isEnded } from "./evaluate";
import { newerHookRun, sameHookRun } from "./hooks";
import { isLive, livenessGranularityMs } from "./liveness";
import type { Policy } from "./policy";
import { applyResourceView, guardOf } from "./resources";
import {
  type ClusterState,
  type EventRecord,
  type Member,
  memberKey,
  type Readiness,
  type Transition,
} from "./state";
import type { Decision, OperatorAction } from "./types";

export const DEFAULT_EVENT_RETENTION_MS = 14 * 86_400_000;

/**
 * Apply one relay report: the relay's own member row and readiness rows, the events its document
 * names, then re-evaluate every loaded event. The reporter is the only relay that can be elected
 * in this call, and only for events its own latest document shows Scheduled (invariant 3).
 */
export function applyReport(
  state: ClusterState,
  report: RelayReport,
  now: number,
  policy: Policy,
): Decision {
  const mk = memberKey(report.vm.name);
  const prev = state.members[mk];
  const doc = report.document;

  // Invariant 4: an older DocumentIncarnation than the one applied never rolls state back.
  if (prev && doc && prev.incarnation !== null && doc.DocumentIncarnation < prev.incarnation) {
    return {
      state,
      directives: [],
      transitions: [],
      applied: false,
      nextReportInSeconds:
        prev.eventKeys.length > 0 ? policy.activeReportSeconds : policy.idleReportSeconds,
      forget: [],
    };
  }

  const docEvents = new Map<string, ScheduledEvent>(
    (doc?.Events ?? []).map((ev) => [eventKey(ev.EventId), ev]),
  );
  const member = nextMember(prev, report, docEvents, now, policy);
  const members = member === prev ? state.members : withEntry(state.members, mk, member);
  let events = state.events;
  let readiness = state.readiness;
  const transitions: Transition[] = [];

  // Events in this document: create or update their records.
  for (const [key, ev] of docEvents) {
    const stored = events[key];
    const updated = observeEvent(
      stored,
      ev,
      report.vm.name,
      doc?.DocumentIncarnation ?? 0,
      now,
      transitions,
    );
    if (updated !== stored) events = withEntry(events, key, updated);
  }
  // Events this relay had and no longer has (with a newer incarnation): they left the document.
  if (doc && prev) {
    for (const key of prev.eventKeys) {
      const stored = events[key];
      if (!docEvents.has(key) && stored && stored.leftAt === null) {
        events = withEntry(events, key, { ...stored, leftAt: now });
        transitions.push({
          eventKey: key,
          at: now,
          from: stored.phase,
          to: stored.phase,
          reason: `left the document of ${report.vm.name}`,
          vm: report.vm.name,
        });
      }
    }
  }

  // Readiness rows: this VM's view of each event it sees or has hook state for.
  const hooksByKey = new Map(report.hooks.map((h) => [eventKey(h.eventId), h]));
  const rowKeys = new Set([...docEvents.keys(), ...hooksByKey.keys(), ...(prev?.eventKeys ?? [])]);
  for (const key of rowKeys) {
    if (!events[key]) continue; // hook state for an event the coordinator never saw: nothing to attach it to
    const rows = readiness[key] ?? dict<Readiness>();
    const stored = rows[mk];
    const ev = docEvents.get(key);
    const row = nextReadiness(stored, report.vm.name, ev, doc !== null, hooksByKey.get(key), now);
    if (row !== stored) readiness = withEntry(readiness, key, withEntry(rows, mk, row));
  }

  // Approval results the relay reports for leases it held.
  for (const a of report.approvals) {
    const key = eventKey(a.eventId);
    const stored = events[key];
    if (!stored || stored.approvedAt !== null || stored.lease?.holder !== mk) continue;
    if (a.outcome === "accepted") {
      events = withEntry(events, key, { ...stored, approvedAt: now, approvedBy: report.vm.name });
      transitions.push({
        eventKey: key,
        at: now,
        from: stored.phase,
        to: stored.phase,
        reason: `StartRequests accepted by IMDS (HTTP ${a.httpStatus ?? 200}) from ${report.vm.name}`,
        vm: report.vm.name,
      });
    } else if (a.outcome === "rejected" || a.outcome === "failed") {
      events = withEntry(events, key, {
        ...stored,
        lease: null,
        failedApprovers: [...new Set([...stored.failedApprovers, mk])],
      });
      transitions.push({
        eventKey: key,
        at: now,
        from: stored.phase,
        to: stored.phase,
        reason: `StartRequests ${a.outcome} at ${report.vm.name}${a.detail ? `: ${a.detail}` : ""}; electing another approver`,
        vm: report.vm.name,
      });
    }
  }

  let next: ClusterState = { cluster: state.cluster, members, events, readiness };
  const candidate: Candidate = {
    memberKey: mk,
    seesScheduled: (key) => docEvents.get(key)?.EventStatus === "Scheduled",
  };
  // Only the events this report concerns are re-decided; the others loaded (for the budget) keep
  // their stored phase until their own relays report or the sweep runs.
  const scope = new Set([
    ...docEvents.keys(),
    ...hooksByKey.keys(),
    ...(prev?.eventKeys ?? []),
    ...report.approvals.map((a) => eventKey(a.eventId)),
  ]);
  const evaluated = evaluateAll(next, now, policy, candidate, scope);
  next = evaluated.state;
  transitions.push(...evaluated.transitions);

  const directives = directivesFor(next, mk, docEvents, hooksByKey, now);
  return {
    state: next,
    directives,
    transitions,
    applied: true,
    nextReportInSeconds: reportInterval(next, mk, docEvents, report, directives, now, policy),
    forget: [],
  };
}

/** The periodic sweep: lease expiry, liveness, NotBefore expiry, recovery timeouts, retention. */
export function tick(
  state: ClusterState,
  now: number,
  policy: Policy,
  opts: { eventRetentionMs?: number } = {},
): Decision {
  const gone = deletedWithTheirVms(state, now, policy);
  const evaluated = evaluateAll(gone.state, now, policy, null);
  const retention = opts.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS;
  const forget = Object.values(evaluated.state.events)
    .filter((e) => isEnded(e) && e.endedAt !== null && now - e.endedAt >= retention)
    .map((e) => e.key);
  return {
    state: evaluated.state,
    directives: [],
    transitions: [...gone.transitions, ...evaluated.transitions],
    applied: true,
    nextReportInSeconds: policy.idleReportSeconds,
    forget,
  };
}

/**
 * A Preempt or Terminate deletes its VMs, relays included: when it has started and no live relay
 * still sees it (a Spot VM alone in its group), nobody will ever report it leaving. The sweep
 * (which loads every member) ends it. Other event types wait for their relays to come back.
 */
function deletedWithTheirVms(
  state: ClusterState,
  now: number,
  policy: Policy,
): { state: ClusterState; transitions: Transition[] } {
  let events = state.events;
  const transitions: Transition[] = [];
  for (const e of Object.values(state.events)) {
    if (!DELETES_VMS.has(e.eventType) || e.status !== "Started" || e.leftAt !== null) continue;
    const rows = Object.entries(state.readiness[e.key] ?? {});
    if (rows.some(([mk, r]) => r.inDocument && isLive(state.members[mk], now, policy))) continue;
    events = withEntry(events, e.key, { ...e, leftAt: now });
    transitions.push({
      eventKey: e.key,
      at: now,
      from: e.phase,
      to: e.phase,
      reason: `${e.eventType} started and no live relay still sees it: its VMs are gone`,
    });
  }
  return { state: events === state.events ? state : { ...state, events }, transitions };
}

export class OperatorActionError extends Error {
  override name = "OperatorActionError";
  constructor(
    message: string,
    readonly code: "notFound" | "ended",
  ) {
    super(message);
  }
}

/** Hold, release or force-approve one event; audited through the returned transitions. */
export function applyOperatorAction(
  state: ClusterState,
  key: string,
  action: OperatorAction,
  now: number,
  policy: Policy,
): Decision {
  const stored = state.events[key];
  if (!stored)
    throw new OperatorActionError(
      `event ${key} is not known in cluster ${state.cluster}`,
      "notFound",
    );
  if (isEnded(stored))
    throw new OperatorActionError(
      `event ${stored.eventId} already ended (${stored.phase})`,
      "ended",
    );
  const by = action.by;
  let updated: EventRecord;
  let reason: string;
  switch (action.kind) {
    case "hold": {
      const expiresAt = now + action.ttlSeconds * 1000;
      updated = { ...stored, hold: { by, reason: action.reason, at: now, expiresAt }, force: null };
      reason = `held by ${by} until ${new Date(expiresAt).toISOString()}: ${action.reason}`;
      break;
    }
    case "release":
      updated = { ...stored, hold: null, force: null };
      reason = `released by ${by}: ${action.reason}`;
      break;
    case "forceApprove": {
      const expiresAt = now + action.ttlSeconds * 1000;
      updated = { ...stored, force: { by, reason: action.reason, at: now, expiresAt }, hold: null };
      reason = `force-approve by ${by} until ${new Date(expiresAt).toISOString()}: ${action.reason}`;
      break;
    }
  }
  const transitions: Transition[] = [
    { eventKey: key, at: now, from: stored.phase, to: stored.phase, reason: `operator: ${reason}` },
  ];
  const withAction: ClusterState = { ...state, events: withEntry(state.events, key, updated) };
  const evaluated = evaluateEvent(withAction, updated, now, policy, null);
  return {
    state: { ...withAction, events: withEntry(withAction.events, key, evaluated.event) },
    directives: [],
    transitions: [...transitions, ...evaluated.transitions],
    applied: true,
    nextReportInSeconds: policy.idleReportSeconds,
    forget: [],
  };
}

function evaluateAll(
  state: ClusterState,
  now: number,
  policy: Policy,
  candidate: Candidate | null,
  scope?: ReadonlySet<string>,
): { state: ClusterState; transitions: Transition[] } {
  let events = state.events;
  const transitions: Transition[] = [];
  const ordered = Object.values(state.events)
    .filter((e) => !scope || scope.has(e.key))
    .sort(budgetOrder);
  for (const original of ordered) {
    const current: ClusterState = { ...state, events };
    const r = evaluateEvent(current, original, now, policy, candidate);
    if (r.event !== original) events = withEntry(events, original.key, r.event);
    transitions.push(...r.transitions);
  }
  return { state: events === state.events ? state : { ...state, events }, transitions };
}

function nextMember(
  prev: Member | undefined,
  report: RelayReport,
  docEvents: Map<string, ScheduledEvent>,
  now: number,
  policy: Policy,
): Member {
  const doc = report.document;
  const eventKeys = doc ? [...docEvents.keys()].sort() : (prev?.eventKeys ?? []);
  const candidate: Member = {
    vmName: report.vm.name,
    vm: report.vm,
    relayVersion: report.relay.version,
    dryRun: report.relay.dryRun ?? false,
    bootId: report.relay.bootId,
    incarnation: doc ? doc.DocumentIncarnation : (prev?.incarnation ?? null),
    eventKeys,
    firstSeenAt: prev?.firstSeenAt ?? now,
    lastSeenAt: prev?.lastSeenAt ?? now,
    ...(report.imdsProblems?.length ? { imdsProblems: report.imdsProblems } : {}),
  };
  if (!prev) return candidate;
  const stale = now - prev.lastSeenAt >= livenessGranularityMs(policy);
  const same =
    !stale &&
    prev.vmName === candidate.vmName &&
    prev.relayVersion === candidate.relayVersion &&
    prev.dryRun === candidate.dryRun &&
    prev.bootId === candidate.bootId &&
    prev.incarnation === candidate.incarnation &&
    prev.eventKeys.join("\n") === eventKeys.join("\n") &&
    JSON.stringify(prev.imdsProblems ?? []) === JSON.stringify(candidate.imdsProblems ?? []) &&
    JSON.stringify(prev.vm) === JSON.stringify(candidate.vm);
  if (same) return prev;
  return { ...candidate, lastSeenAt: now };
}

function observeEvent(
  stored: EventRecord | undefined,
  ev: ScheduledEvent,
  vmName: string,
  incarnation: number,
  now: number,
  transitions: Transition[],
): EventRecord {
  const key = eventKey(ev.EventId);
  if (!stored) {
    const started = ev.EventStatus === "Started";
    transitions.push({
      eventKey: key,
      at: now,
      from: null,
      to: started ? "Unplanned" : "Observed",
      reason: `${ev.EventType} ${ev.EventStatus} first reported by ${vmName} for ${ev.Resources.join(", ")}`,
      vm: vmName,
    });
    return {
      key,
      eventId: ev.EventId,
      eventType: ev.EventType,
      eventSource: ev.EventSource ?? null,
      durationInSeconds: ev.DurationInSeconds ?? null,
      description: ev.Description ?? null,
      // The first reporter's own view, as any later one's (it may not name the reporter).
      ...applyResourceView(guardOf({ resources: [] }), vmName, incarnation, ev.Resources).guard,
      status: ev.EventStatus,
      notBefore: notBeforeMs(ev),
      phase: started ? "Unplanned" : "Observed",
      phaseSince: now,
      firstSeenAt: now,
      firstSeenBy: vmName,
      firstSeenStarted: started,
      startedAt: started ? now : null,
      leftAt: null,
      endedAt: null,
      lease: null,
      failedApprovers: [],
      approvedAt: null,
      approvedBy: null,
      approvalRule: null,
      hold: null,
      force: null,
    };
  }
  if (stored.leftAt !== null) return stored; // a late document from a slower VM does not revive it
  let e = stored;
  // Only a VM's own relay can take it out of Resources (resources.ts, invariant 1).
  const view = applyResourceView(guardOf(e), vmName, incarnation, ev.Resources);
  if (view.changed) e = { ...e, ...view.guard };
  for (const note of view.notes)
    transitions.push({
      eventKey: key,
      at: now,
      from: e.phase,
      to: e.phase,
      reason: note,
      vm: vmName,
    });
  // EventStatus only moves forward; NotBefore is "" once Started, so keep the announced one.
  if (ev.EventStatus === "Started" && e.status !== "Started") e = { ...e, status: "Started" };
  const nb = notBeforeMs(ev);
  if (e.status === "Scheduled" && nb !== null && nb !== e.notBefore) e = { ...e, notBefore: nb };
  const eventSource = ev.EventSource ?? e.eventSource;
  const durationInSeconds = ev.DurationInSeconds ?? e.durationInSeconds;
  const description = ev.Description ?? e.description;
  if (
    ev.EventType !== e.eventType ||
    eventSource !== e.eventSource ||
    durationInSeconds !== e.durationInSeconds ||
    description !== e.description
  )
    e = { ...e, eventType: ev.EventType, eventSource, durationInSeconds, description };
  return e;
}

function nextReadiness(
  stored: Readiness | undefined,
  vmName: string,
  ev: ScheduledEvent | undefined,
  docKnown: boolean,
  hooks: RelayReport["hooks"][number] | undefined,
  now: number,
): Readiness {
  const inDocument = docKnown ? ev !== undefined : (stored?.inDocument ?? false);
  const affected = ev ? namesVm(ev, vmName) : (stored?.affected ?? false);
  const drain = newerHookRun(stored?.drain ?? null, hooks?.drain);
  const recover = newerHookRun(stored?.recover ?? null, hooks?.recover);
  if (
    stored &&
    stored.inDocument === inDocument &&
    stored.affected === affected &&
    stored.vmName === vmName &&
    sameHookRun(stored.drain, drain) &&
    sameHookRun(stored.recover, recover)
  )
    return stored;
  return {
    vmName,
    inDocument,
    affected,
    drain,
    recover,
    firstSeenAt: stored?.firstSeenAt ?? now,
    updatedAt: now,
  };
}

function directivesFor(
  state: ClusterState,
  mk: string,
  docEvents: Map<string, ScheduledEvent>,
  hooksByKey: Map<string, RelayReport["hooks"][number]>,
  now: number,
): Directive[] {
  const directives: Directive[] = [];
  const approve: string[] = [];
  let leaseExpiresAt = Number.POSITIVE_INFINITY;
  for (const e of Object.values(state.events)) {
    const seen = docEvents.get(e.key);
    if (
      e.lease?.holder === mk &&
      now < e.lease.expiresAt &&
      e.approvedAt === null &&
      e.phase === "Approving" &&
      seen?.EventStatus === "Scheduled"
    ) {
      approve.push(seen.EventId); // echoed exactly as this relay's document spells it
      leaseExpiresAt = Math.min(leaseExpiresAt, e.lease.expiresAt);
    }
    const hooks = hooksByKey.get(e.key);
    // A safety net for a relay that drained and lost track of the event (a running drain is
    // followed by its recover anyway).
    if (
      e.leftAt !== null &&
      !seen &&
      hooks?.drain &&
      hooks.drain.status !== "running" &&
      !hooks.recover
    ) {
      directives.push({ kind: "recover", eventId: hooks.eventId });
    }
  }
  if (approve.length > 0)
    directives.unshift({
      kind: "approve",
      eventIds: approve,
      leaseExpiresAt: new Date(leaseExpiresAt).toISOString(),
    });
  return directives;
}
