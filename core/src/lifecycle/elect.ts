import type { Policy } from "@quiesce/protocol/policy";
import { isAdvisoryEvent } from "../model/eventTypes";
import { type ClusterState, type EventRecord, memberKey } from "../model/state";
import {
  type ApprovalDecision,
  decideApproval,
  eventsInFlight,
  unreadableInFlight,
} from "../rules/approval";
import { checkGates, type EvaluationInputs, gatesPass } from "../rules/gates";

/** The relay whose report is being applied, when it may be elected approver. */
export interface Candidate {
  memberKey: string;
  /** The event is in the candidate's latest document with EventStatus Scheduled. */
  seesScheduled: (eventKey: string) => boolean;
}

/**
 * Whether anyone may be elected to approve the event now: invariant 1 (decideApproval), the
 * cluster's budget of events in flight, and every gate passing. A relay and the control plane
 * are elected by this one rule; nobody ever is for an advisory event (isAdvisoryEvent).
 */
export function electable(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
  inputs: EvaluationInputs,
): (ApprovalDecision & { allowed: true }) | null {
  if (isAdvisoryEvent(e)) return null;
  const d = decideApproval(state, e, now, policy);
  if (!d.allowed) return null;
  const inFlight = eventsInFlight(state, e.key).length + unreadableInFlight(state).length;
  if (!d.bypassesBudget && inFlight >= policy.maxEventsInFlight) return null;
  if (!gatesPass(checkGates(state, e, now, policy, inputs))) return null;
  return d;
}

export function tryElect(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
  c: Candidate,
  inputs: EvaluationInputs,
): { patch: Partial<EventRecord>; reason: string } | null {
  const member = state.members[c.memberKey];
  if (!member || member.dryRun) return null;
  if (e.failedApprovers.includes(c.memberKey)) return null;
  if (!c.seesScheduled(e.key)) return null; // invariant 3: only a VM that sees the event approves it
  // A scale set's Terminate is approved by the VM it deletes, never a neighbour: every VM is to
  // approve "only the EventID relevant for that VM" (virtual-machine-scale-sets-terminate-notification.md).
  if (e.eventType === "Terminate" && !e.resources.some((r) => memberKey(r) === c.memberKey))
    return null;
  const d = electable(state, e, now, policy, inputs);
  if (!d) return null;
  const attempt = (e.lease?.attempt ?? e.failedApprovers.length) + 1;
  return {
    patch: {
      lease: {
        holder: c.memberKey,
        grantedAt: now,
        expiresAt: now + policy.approvalLeaseSeconds * 1000,
        attempt,
      },
      approvalRule: d.rule,
    },
    reason: `${member.vmName} elected approver (rule ${d.rule}, attempt ${attempt})`,
  };
}
