import { dict } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { Phase } from "@quiesce/protocol/status";
import { advisoryNote, DELETES_VMS, isAdvisoryEvent } from "../model/eventTypes";
import { type ClusterState, type EventRecord, memberKey, type Readiness } from "../model/state";
import { agentlessRecoverOwed, isAgentless } from "./agentlessVms";
import { decideApproval } from "./approval";
import { isLive } from "./liveness";
import { restoresOwed } from "./loadBalancer";

type Next = { phase: Phase; reason: string };

/**
 * The phase an event's record and readiness say it is in now (evaluate.ts applies it): the
 * level-triggered heart of the lifecycle (docs/ARCHITECTURE.md, "Lifecycle").
 */
export function nextPhase(state: ClusterState, e: EventRecord, now: number, policy: Policy): Next {
  if (isAdvisoryEvent(e)) return advisoryPhase(state, e, now, policy);
  if (e.leftAt !== null) return leftPhase(state, e, e.leftAt, now, policy);
  return activePhase(state, e, now, policy);
}

/**
 * An advisory event (eventTypes.ts) stays Observed while Azure shows it: there is nothing to
 * drain or approve. It ends Completed once it left (the recommendation was withdrawn, or it
 * outlived its VM), never Cancelled, which says a maintenance did not run. A row of an earlier
 * release that drained or approved one ends as that release would have, Cancelled aside.
 */
function advisoryPhase(state: ClusterState, e: EventRecord, now: number, policy: Policy): Next {
  if (e.leftAt === null) return { phase: "Observed", reason: advisoryNote(e) };
  const over = leftPhase(state, e, e.leftAt, now, policy);
  return over.phase === "Cancelled"
    ? { phase: "Completed", reason: `advisory, over: ${over.reason}` }
    : over;
}

/** The phase of an event that left the document (or Azure reports over). */
function leftPhase(
  state: ClusterState,
  e: EventRecord,
  leftAt: number,
  now: number,
  policy: Policy,
): Next {
  // Recovering counts as started only when it was (seen Started, or it left after NotBefore):
  // the load-balancer wait of an event that left unstarted, below, is Recovering too.
  // Azure's own word, when it published one (published.ts): Canceled never ran, Completed did.
  const cancelled = e.published?.status === "Canceled";
  const wasStarted =
    !cancelled &&
    (e.published?.status === "Completed" ||
      e.status === "Started" ||
      e.approvedAt !== null ||
      ["Started", "Unplanned", "ExpiredAtNotBefore"].includes(e.phase) ||
      (e.phase === "Recovering" &&
        (e.startedAt !== null || (e.notBefore !== null && leftAt >= e.notBefore))));
  const lbOwed = restoresOwed(state, e);
  if (!wasStarted) {
    // The coordinator's own recover hooks (VMs without a relay) are owed even so.
    const ownOwed = recoversOwed(state, e, now, policy).filter((vm) =>
      isAgentless(state, memberKey(vm), policy),
    );
    // Taken out of a load balancer before it left (cancelled, or started and over while the
    // coordinator did not hear): not ended until its VMs are back, or the sweep, which visits
    // only clusters with events not ended, would never put them back.
    if (ownOwed.length > 0 && now - leftAt < policy.recoverTimeoutSeconds * 1000)
      return {
        phase: "Recovering",
        reason: `over before it started; the coordinator runs the recover hooks of ${ownOwed.join(", ")}`,
      };
    if (lbOwed.length > 0 && now - leftAt < policy.recoverTimeoutSeconds * 1000)
      return {
        phase: "Recovering",
        reason: "left the document while still Scheduled; putting VMs back in their load balancers",
      };
    return {
      phase: "Cancelled",
      reason: cancelled ? "Azure reports it Canceled" : "left the document while still Scheduled",
    };
  }
  const owed = recoversOwed(state, e, now, policy);
  if (owed.length + lbOwed.length > 0 && now - leftAt < policy.recoverTimeoutSeconds * 1000)
    return {
      phase: "Recovering",
      reason:
        owed.length > 0
          ? "left the document; recover hooks running"
          : "left the document; putting VMs back in their load balancers",
    };
  return {
    phase: "Completed",
    reason:
      owed.length > 0
        ? `recover not confirmed by ${owed.join(", ")} within the timeout`
        : "recovered",
  };
}

/** The phase of an event still in the document: what its drains, lease and approval say. */
function activePhase(state: ClusterState, e: EventRecord, now: number, policy: Policy): Next {
  if (e.status === "Started") {
    if (e.firstSeenStarted)
      return { phase: "Unplanned", reason: "first seen Started (no Scheduled notice)" };
    if (e.approvedAt !== null)
      return { phase: "Started", reason: "IMDS shows Started after our approval" };
    // Started while the elected approver's StartRequests is still to be confirmed (Event Grid's
    // Started, or another VM's document, can arrive before the approver's report): most likely
    // ours. Its confirmation sets approvedAt; a lease that runs out unconfirmed falls through.
    if (e.lease !== null && now < e.lease.expiresAt && e.phase !== "ExpiredAtNotBefore")
      return {
        phase: "Started",
        reason: `Started while the approval of ${e.lease.holder} is being confirmed`,
      };
    // Unplanned until a source shows it was announced after all (a late Scheduled delivery or
    // document): then it was a miss, as if that had come first.
    if (e.phase === "ExpiredAtNotBefore" || e.phase === "Unplanned")
      return e.phase === "Unplanned" && !e.firstSeenStarted
        ? {
            phase: "ExpiredAtNotBefore",
            reason: "announced after all, and started before any approval",
          }
        : { phase: e.phase, reason: "" };
    return {
      phase: "ExpiredAtNotBefore",
      reason: "Started before any approval (NotBefore reached)",
    };
  }
  if (e.phase === "ExpiredAtNotBefore") return { phase: e.phase, reason: "" };
  if (e.approvedAt !== null)
    return {
      phase: "Approving",
      reason:
        e.approvedVia === "controlPlane"
          ? "acknowledged through Azure Resource Manager"
          : "StartRequests accepted by IMDS",
    };
  if (e.notBefore !== null && now >= e.notBefore)
    return {
      phase: "ExpiredAtNotBefore",
      reason: "NotBefore passed before approval; Azure starts it",
    };
  if (e.lease) return { phase: "Approving", reason: `approval lease held by ${e.lease.holder}` };
  const d = decideApproval(state, e, now, policy);
  if (d.allowed) return { phase: "Ready", reason: `approval allowed (${d.rule})` };
  const started =
    d.drained.length > 0 ||
    d.blockers.some((b) => b.reason !== "drainPending" && b.reason !== "maintenanceWindow");
  // Deferred: a relay too old for defer directives may have drained already; approval waits.
  if (d.rule === "deferred")
    return {
      phase: started ? "Draining" : "Observed",
      reason: "drains deferred by a maintenance window",
    };
  return started
    ? { phase: "Draining", reason: `waiting for ${d.blockers.length} VM(s) to drain` }
    : { phase: "Observed", reason: "waiting for drains to start" };
}

/**
 * Affected VMs that drained for the event and still owe a recover (and can still do it): their
 * live relay's, or the coordinator's own for a VM without one (agentless.ts).
 */
export function recoversOwed(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
): string[] {
  if (DELETES_VMS.has(e.eventType)) return [];
  const rows = state.readiness[e.key] ?? dict<Readiness>();
  return Object.entries(rows)
    .filter(
      ([mk, r]) =>
        r.drain !== null &&
        r.recover?.status !== "succeeded" &&
        (isLive(state.members[mk], now, policy) || agentlessRecoverOwed(state, mk, r, policy)),
    )
    .map(([, r]) => r.vmName);
}
