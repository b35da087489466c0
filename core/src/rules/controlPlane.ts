import { withEntry } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import { acknowledgeRefusal } from "../model/acknowledgeRefusal";
import { isAdvisoryEvent } from "../model/eventTypes";
import {
  type ArmFailure,
  type ClusterState,
  CONTROL_PLANE,
  type ControlPlaneRecord,
  type EventRecord,
  memberKey,
  type Transition,
} from "../model/state";
import { isLiveForEvent } from "./liveness";

/**
 * Approval through Azure Resource Manager (docs/control-plane.md). The control plane is one more
 * candidate approver: it is elected by the same rules as a relay (evaluate.ts: invariant 1, the
 * gates, the budget) into the same lease, so exactly one approval path holds an event at a time,
 * but only when no relay can: the event stayed Ready `afterSeconds` with no relay taking the
 * lease, or a relay's lease ran out without its StartRequests confirmed. The shell then claims
 * the call (claimAcknowledge, committed under the event's ETag, so one instance makes it) and
 * records what ARM answered (recordAcknowledge).
 */

/**
 * Whether the control plane may take the lease of this Ready event now (election rules aside).
 * It stands in for relays that cannot approve, never for relays told not to: an event naming a
 * VM whose relay runs dry-run is left to NotBefore, as it would be without the control plane.
 * An advisory event is never acknowledged (it would have no effect), whoever published it.
 */
export function controlPlaneWanted(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
): string | null {
  const p = policy.controlPlaneApproval;
  if (p.mode !== "fallback" || e.lease || e.approvedAt !== null || e.phase !== "Ready") return null;
  if (isAdvisoryEvent(e)) return null;
  if (e.resources.some((vm) => state.members[memberKey(vm)]?.dryRun)) return null;
  const cp = e.controlPlane;
  if (cp?.gaveUp || (cp?.attempts ?? 0) >= p.maxAttempts) return null;
  if (e.failedApprovers.length > 0)
    return `the lease of ${e.failedApprovers.at(-1)} ran out without StartRequests confirmed`;
  if (now - e.phaseSince >= p.afterSeconds * 1000)
    return `no relay took the lease within ${p.afterSeconds} s of the event being Ready`;
  if (e.published && !relayMayApprove(state, e, now, policy))
    return "no live relay sees the event (Azure published it off the VM): nobody else can approve it";
  return null;
}

/**
 * Whether some relay could still take the lease: a live one, not dry-run, not failed before,
 * that sees the event or will (a VM it names: Event Grid may deliver before that relay's report).
 * When none can (a group without relays, known from Event Grid or Resource Graph), waiting
 * `afterSeconds` for one would only waste the notice.
 */
function relayMayApprove(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
): boolean {
  const named = new Set(e.resources.map(memberKey));
  const seeing = Object.entries(state.readiness[e.key] ?? {})
    .filter(([, row]) => row.inDocument)
    .map(([mk]) => mk);
  for (const mk of new Set([...named, ...seeing])) {
    const m = state.members[mk];
    if (!m || m.dryRun || e.failedApprovers.includes(mk)) continue;
    if (e.eventType === "Terminate" && !named.has(mk)) continue;
    if (isLiveForEvent(m, e, now, policy)) return true;
  }
  return false;
}

/** The patch that gives the control plane the lease (the caller checked it is electable). */
export function controlPlaneLease(
  e: EventRecord,
  now: number,
  policy: Policy,
  rule: NonNullable<EventRecord["approvalRule"]>,
): Partial<EventRecord> {
  const attempts = (e.controlPlane?.attempts ?? 0) + 1;
  return {
    lease: {
      holder: CONTROL_PLANE,
      via: "controlPlane",
      grantedAt: now,
      expiresAt: now + policy.controlPlaneApproval.leaseSeconds * 1000,
      attempt: attempts,
    },
    approvalRule: rule,
    controlPlane: {
      attempts,
      claimedAt: null,
      lastError: e.controlPlane?.lastError ?? null,
      gaveUp: false,
    },
  };
}

/** A control-plane lease that ran out unconfirmed: the attempt counts; no relay is blamed. */
export function controlPlaneLeaseExpired(e: EventRecord, policy: Policy): Partial<EventRecord> {
  const cp: ControlPlaneRecord = e.controlPlane ?? {
    attempts: 1,
    claimedAt: null,
    lastError: null,
    gaveUp: false,
  };
  return {
    lease: null,
    controlPlane: {
      ...cp,
      claimedAt: null,
      gaveUp: cp.gaveUp || cp.attempts >= policy.controlPlaneApproval.maxAttempts,
    },
  };
}

/** The control plane's lease of this event, still unclaimed and unexpired, for this attempt. */
function heldLease(e: EventRecord | undefined, attempt: number, now: number) {
  if (!e || e.approvedAt !== null || e.lease?.via !== "controlPlane") return null;
  if (e.lease.attempt !== attempt || now >= e.lease.expiresAt) return null;
  return e.lease;
}

export interface ControlPlaneChange {
  state: ClusterState;
  transitions: Transition[];
}

/**
 * Claims the acknowledge call of a control-plane lease: the instance whose commit of this lands
 * makes the call; any other finds it claimed. Null when there is nothing (left) to claim.
 */
export function claimAcknowledge(
  state: ClusterState,
  key: string,
  attempt: number,
  now: number,
): ControlPlaneChange | null {
  const e = state.events[key];
  if (!heldLease(e, attempt, now) || !e?.controlPlane || e.controlPlane.claimedAt !== null)
    return null;
  const next: EventRecord = { ...e, controlPlane: { ...e.controlPlane, claimedAt: now } };
  return { state: { ...state, events: withEntry(state.events, key, next) }, transitions: [] };
}

/** What the acknowledge call came to; a failure's meaning is acknowledgeRefusal's to decide. */
export type AcknowledgeOutcome = { ok: true; scope: string } | { ok: false; failure: ArmFailure };

/** What ARM answered to the acknowledge call of `attempt`. */
export function recordAcknowledge(
  state: ClusterState,
  key: string,
  attempt: number,
  outcome: AcknowledgeOutcome,
  now: number,
  policy: Policy,
): ControlPlaneChange | null {
  const e = state.events[key];
  if (!e || e.approvedAt !== null || e.lease?.via !== "controlPlane" || e.lease.attempt !== attempt)
    return null;
  const cp = e.controlPlane ?? {
    attempts: attempt,
    claimedAt: now,
    lastError: null,
    gaveUp: false,
  };
  let next: EventRecord;
  let reason: string;
  if (outcome.ok) {
    next = { ...e, approvedAt: now, approvedBy: CONTROL_PLANE, approvedVia: "controlPlane" };
    reason = `acknowledged by the control plane through Azure Resource Manager on ${outcome.scope} (rule ${e.approvalRule}, attempt ${attempt})`;
  } else {
    const f = outcome.failure;
    const refusal = acknowledgeRefusal(f);
    const max = policy.controlPlaneApproval.maxAttempts;
    const last = refusal.giveUp || cp.attempts >= max;
    next = {
      ...e,
      lease: null,
      controlPlane: {
        ...cp,
        claimedAt: null,
        lastError: f,
        gaveUp: cp.gaveUp || last,
      },
    };
    const then = !last
      ? `retried when the control plane is next elected (attempt ${attempt} of ${max})`
      : `no more attempts for this event${refusal.giveUp ? "" : ` (${cp.attempts} made)`}: a relay may still approve it, and NotBefore is the backstop`;
    reason = `control plane could not acknowledge (attempt ${attempt}, ${refusal.kind}): ARM ${f.status || "request"} ${f.code}: ${f.message}. Meaning: ${refusal.meaning}; ${then}`;
  }
  return {
    state: { ...state, events: withEntry(state.events, key, next) },
    transitions: [
      { eventKey: key, at: now, from: e.phase, to: e.phase, reason, vm: CONTROL_PLANE },
    ],
  };
}

/** Control-plane leases whose acknowledge call is due: granted, unclaimed, unexpired. */
export function dueAcknowledges(
  state: ClusterState,
  now: number,
): Array<{ eventKey: string; eventId: string; attempt: number; resources: string[] }> {
  return Object.values(state.events)
    .filter((e) => heldLease(e, e.lease?.attempt ?? -1, now) && e.controlPlane?.claimedAt === null)
    .map((e) => ({
      eventKey: e.key,
      eventId: e.eventId,
      attempt: e.lease?.attempt ?? 0,
      resources: e.resources,
    }));
}
