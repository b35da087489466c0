import { eventKey, isAdvisory, type StartRequestsBody } from "@quiesce/protocol/imds";
import { append, fail, ok, publish, replaceActive, started } from "./state";
import {
  approvalsComplete,
  pendingDeletesBefore,
  releasedReason,
  releaseHeldDeletes,
} from "./terminate";
import {
  type Approval,
  CONTROL_PLANE,
  type FabricState,
  type Instant,
  type Outcome,
  type SimEvent,
  type StartRequestOutcome,
} from "./types";

type Outcomes = ReadonlyArray<{ eventId: string; outcome: StartRequestOutcome }>;

interface Approved {
  readonly state: FabricState;
  readonly outcomes: Outcomes;
  /** Per group, the events this call started (each group then publishes one new document). */
  readonly startedByGroup: ReadonlyMap<string, string[]>;
  /** Per group, approved Terminates this call let go (no pending delete holds them any more). */
  readonly releasedByGroup: ReadonlyMap<string, string[]>;
}

/**
 * The one approval path, shared by IMDS StartRequests and the Maintenance RP's acknowledge, so
 * both behave the same (Azure: "an approval request from either endpoint" means the event can
 * start). Ids are looked up among the active events of `groups`; an approval from someone not in
 * `Resources` is recorded but does not count towards `requireAllApprovals`.
 */
function approveIds(
  state: FabricState,
  groups: ReadonlySet<string>,
  eventIds: readonly string[],
  approval: Approval,
): Approved {
  let next = state;
  const outcomes: Array<{ eventId: string; outcome: StartRequestOutcome }> = [];
  const startedByGroup = new Map<string, string[]>();
  for (const eventId of eventIds) {
    const key = eventKey(eventId);
    const e = next.active.find((x) => groups.has(x.group) && eventKey(x.eventId) === key);
    if (!e) {
      outcomes.push({ eventId, outcome: "unknown" });
      continue;
    }
    if (e.phase === "Started") {
      outcomes.push({ eventId, outcome: "alreadyStarted" });
      continue;
    }
    // "acknowledging them has no effect": not even recorded as an approval.
    if (isAdvisory({ EventType: e.eventType })) {
      outcomes.push({ eventId, outcome: "advisory" });
      continue;
    }
    const first = e.approvals.length === 0;
    const approved: SimEvent = {
      ...e,
      approvals: [...e.approvals, approval],
      ...(first ? { approvedAt: approval.at, approvedBy: approval.vm } : {}),
    };
    // A scale set's approved Terminate still waits for its unapproved neighbours' ("Approve all
    // pending deletes"); releaseHeldDeletes lets it go once they are approved or started.
    if (approvalsComplete(approved) && pendingDeletesBefore(next, approved).length === 0) {
      next = replaceActive(next, started(approved, approval.at, "approval"));
      startedByGroup.set(e.group, [...(startedByGroup.get(e.group) ?? []), e.eventId]);
      outcomes.push({ eventId, outcome: "approved" });
    } else {
      next = replaceActive(next, approved);
      outcomes.push({ eventId, outcome: "waitingForOthers" });
    }
  }
  const released = releaseHeldDeletes(next, approval.at);
  return {
    state: released.state,
    outcomes,
    startedByGroup,
    releasedByGroup: released.startedByGroup,
  };
}

/** One new document per group whose events this approval started or let go. */
function publishStarted(r: Approved, by: string, at: Instant): FabricState {
  let next = r.state;
  const groups = new Set([...r.startedByGroup.keys(), ...r.releasedByGroup.keys()]);
  for (const group of groups) {
    const ids = r.startedByGroup.get(group);
    const released = r.releasedByGroup.get(group);
    const reasons = [
      ...(ids ? [`started ${ids.join(",")} on approval by ${by}`] : []),
      ...(released ? [releasedReason(released)] : []),
    ];
    next = publish(next, group, reasons.join("; "), at);
  }
  return next;
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
): Outcome<Outcomes> {
  const vm = state.vms[vmName];
  if (!vm || vm.deleted) return fail(404, `no VM ${vmName}`);
  const eventIds = body.StartRequests.map((r) => r.EventId);
  const r = approveIds(state, new Set([vm.group]), eventIds, { vm: vm.name, at });
  let next = append(r.state, {
    kind: "startRequests",
    vm: vm.name,
    group: vm.group,
    eventIds,
    outcomes: r.outcomes,
    at,
  });
  next = publishStarted({ ...r, state: next }, vm.name, at);
  return ok(next, r.outcomes);
}

export interface ControlPlaneAcknowledge {
  /** The groups whose events the ARM scope covers (a scale set spans its placement groups). */
  readonly groups: readonly string[];
  readonly eventIds: readonly string[];
  /** The ARM resource id the call named. */
  readonly scope: string;
  readonly principalId: string;
}

/**
 * `POST …/providers/Microsoft.Maintenance/scheduledevents/{id}/acknowledge` (or the list form):
 * the same approval as a VM's StartRequests, recorded with the approver `control-plane` and the
 * caller's principal. The outcomes tell the ARM edge what to answer (404, 409 or 200).
 */
export function acknowledgeFromControlPlane(
  state: FabricState,
  cmd: ControlPlaneAcknowledge,
  at: Instant,
): Outcome<Outcomes> {
  const approval: Approval = { vm: CONTROL_PLANE, at, principalId: cmd.principalId };
  const r = approveIds(state, new Set(cmd.groups), cmd.eventIds, approval);
  let next = append(r.state, {
    kind: "armAcknowledge",
    scope: cmd.scope,
    principalId: cmd.principalId,
    eventIds: cmd.eventIds,
    outcomes: r.outcomes,
    at,
  });
  next = publishStarted({ ...r, state: next }, `${CONTROL_PLANE} (${cmd.principalId})`, at);
  return ok(next, r.outcomes);
}
