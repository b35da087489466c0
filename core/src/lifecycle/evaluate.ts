import { withEntry } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { Phase } from "@quiesce/protocol/status";
import { DELETES_VMS } from "../model/eventTypes";
import {
  type ClusterState,
  type EventRecord,
  type FailingGate,
  memberKey,
  type Transition,
} from "../model/state";
import { activeOverride, decideApproval } from "../rules/approval";
import { budgetOrder } from "../rules/budgetOrder";
import {
  controlPlaneLease,
  controlPlaneLeaseExpired,
  controlPlaneWanted,
} from "../rules/controlPlane";
import { checkGates, type EvaluationInputs, hasGates } from "../rules/gates";
import { nextPhase, recoversOwed } from "../rules/phase";
import { type Candidate, electable, tryElect } from "./elect";

export interface Evaluation {
  event: EventRecord;
  transitions: Transition[];
}

const ENDED: ReadonlySet<Phase> = new Set(["Completed", "Cancelled"]);

/**
 * Level-triggered: recompute the event's phase from everything known about it (its record, the
 * readiness rows, member liveness, the clock), the way a controller reconciles. Returns the same
 * object when nothing changed.
 */
export function evaluateEvent(
  state: ClusterState,
  original: EventRecord,
  now: number,
  policy: Policy,
  candidate: Candidate | null,
  inputs: EvaluationInputs = {},
): Evaluation {
  if (ENDED.has(original.phase)) return { event: original, transitions: [] };
  const transitions: Transition[] = [];
  let e = original;
  const note = (to: Phase, reason: string, vm?: string) =>
    transitions.push({
      eventKey: e.key,
      at: now,
      from: original.phase,
      to,
      reason,
      ...(vm ? { vm } : {}),
    });
  const patch = (p: Partial<EventRecord>) => {
    e = { ...e, ...p };
  };

  // Operator overrides expire on their own.
  if (e.hold && !activeOverride(e.hold, now)) {
    note(e.phase, `operator hold by ${e.hold.by} expired`);
    patch({ hold: null });
  }
  if (e.force && !activeOverride(e.force, now)) {
    note(e.phase, `operator force-approve by ${e.force.by} expired`);
    patch({ force: null });
  }
  // A lease that ran out without a confirmed approval: that approver failed, elect another.
  if (e.lease && now >= e.lease.expiresAt) {
    const holder = e.lease.holder;
    if (e.approvedAt === null && e.lease.via === "controlPlane") {
      note(e.phase, "the control plane's acknowledge was not confirmed within its lease", holder);
      patch(controlPlaneLeaseExpired(e, policy));
    } else if (e.approvedAt === null) {
      note(
        e.phase,
        `approval lease of ${holder} expired without a confirmed StartRequests`,
        holder,
      );
      patch({ lease: null, failedApprovers: [...new Set([...e.failedApprovers, holder])] });
    } else {
      patch({ lease: null });
    }
  }
  // An operator hold revokes an outstanding lease (a directive already sent cannot be recalled).
  if (e.hold && e.lease && e.approvedAt === null) {
    note(e.phase, `approval lease of ${e.lease.holder} revoked by operator hold`, e.lease.holder);
    patch({ lease: null });
  }

  // Readiness can be lost after election (Resources grew, a hold, a failed drain re-reported):
  // withdraw an unconfirmed lease rather than let a stale election stand.
  if (
    e.lease &&
    e.approvedAt === null &&
    e.status === "Scheduled" &&
    !decideApproval(state, e, now, policy).allowed
  ) {
    note(e.phase, `approval lease of ${e.lease.holder} withdrawn: no longer ready`, e.lease.holder);
    patch({ lease: null });
  }

  const phase = nextPhase(state, e, now, policy);
  let next: Phase = phase.phase;
  let reason = phase.reason;

  if (next === "Ready" && candidate) {
    const elected = tryElect(state, e, now, policy, candidate, inputs);
    if (elected) {
      patch(elected.patch);
      next = "Approving";
      reason = elected.reason;
    }
  }
  // Only rounds with no relay to elect (the sweep's tick, an operator's action) elect the
  // control plane: a relay that can approve is always preferred, and one reporting elects itself.
  if (next === "Ready" && !candidate) {
    const why = controlPlaneWanted(state, { ...e, phase: "Ready" }, now, policy);
    const d = why ? electable(state, e, now, policy, inputs) : null;
    if (why && d?.allowed) {
      patch(controlPlaneLease(e, now, policy, d.rule));
      next = "Approving";
      reason = `control plane elected approver (rule ${d.rule}, attempt ${e.lease?.attempt}): ${why}`;
    }
  }
  // What gates hold a Ready event, kept on the record for status and history; only a round that
  // evaluated them (inputs.gates) may change it.
  if (next === "Ready" && inputs.gates && hasGates(policy)) {
    const failing = checkGates(state, e, now, policy, inputs).failing;
    if (!sameGates(e.gates?.failing ?? [], failing)) {
      if (failing.length > 0) note(e.phase, `waiting for gate(s): ${describeGates(failing)}`);
      else if (e.gates) note(e.phase, "gates pass");
      patch({ gates: failing.length > 0 ? { failing, since: now } : null });
    }
  } else if (next !== "Ready" && e.gates) {
    patch({ gates: null });
  }

  if (next !== e.phase) {
    note(next, reason);
    patch({ phase: next, phaseSince: now });
    if (
      (next === "Started" || next === "Unplanned" || next === "ExpiredAtNotBefore") &&
      e.startedAt === null
    ) {
      if (e.status === "Started") patch({ startedAt: now });
    }
    if (ENDED.has(next)) patch({ endedAt: now, lease: null });
  } else if (e.status === "Started" && e.startedAt === null) {
    patch({ startedAt: now });
  }
  return { event: e, transitions };
}

export { DELETES_VMS, recoversOwed };

export function isEnded(e: EventRecord): boolean {
  return ENDED.has(e.phase);
}

export { memberKey };

/**
 * Re-decides the events in `scope` (all when absent), in budget order (budgetOrder.ts): the
 * events holding the budget first, then the earliest NotBefore, so when the budget frees up the
 * event that must start soonest gets it.
 */
export function evaluateAll(
  state: ClusterState,
  now: number,
  policy: Policy,
  candidate: Candidate | null,
  scope?: ReadonlySet<string>,
  inputs: EvaluationInputs = {},
): { state: ClusterState; transitions: Transition[] } {
  let events = state.events;
  const transitions: Transition[] = [];
  const ordered = Object.values(state.events)
    .filter((e) => !scope || scope.has(e.key))
    .sort(budgetOrder);
  for (const original of ordered) {
    const current: ClusterState = { ...state, events };
    const r = evaluateEvent(current, original, now, policy, candidate, inputs);
    if (r.event !== original) events = withEntry(events, original.key, r.event);
    transitions.push(...r.transitions);
  }
  return { state: events === state.events ? state : { ...state, events }, transitions };
}

const sameGates = (a: readonly FailingGate[], b: readonly FailingGate[]) =>
  a.length === b.length && a.every((g, i) => g.name === b[i]?.name && g.detail === b[i]?.detail);

export const describeGates = (gs: readonly FailingGate[]) =>
  gs.map((g) => `${g.name} (${g.detail})`).join(", ");
