import { dict } from "@quiesce/protocol";
import { hidesEvents } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { Phase } from "@quiesce/protocol/status";
import { DELETES_VMS, isAdvisoryEvent } from "../model/eventTypes";
import {
  type ApprovalRule,
  type ClusterState,
  type EventRecord,
  type Member,
  memberKey,
  type Readiness,
} from "../model/state";
import type { Blocker } from "../model/types";
import { isAgentless } from "./agentlessVms";
import { isLiveForEvent } from "./liveness";
import { loadBalancerBlocker } from "./loadBalancer";
import { windowDeferral } from "./windowDeferral";

/** Allowed under a rule, or not (held by an operator, or waiting: rule null). */
export type ApprovalDecision = {
  blockers: Blocker[];
  drained: string[];
  /** Policy and operator approvals are not limited by maxEventsInFlight. */
  bypassesBudget: boolean;
} & (
  | { allowed: true; rule: ApprovalRule }
  /** "advisory": nothing to approve (isAdvisoryEvent), whatever its VMs, a policy or a force say. */
  /** "deferred": a maintenance window holds its drain (windowDeferral.ts); its blockers name the rule. */
  | { allowed: false; rule: "held" | "advisory" | "deferred" | null }
);

export function activeOverride<T extends { expiresAt: number }>(
  o: T | null,
  now: number,
): T | null {
  return o && now < o.expiresAt ? o : null;
}

export function matchingAutoApproveRule(event: EventRecord, policy: Policy): string | null {
  for (const rule of policy.autoApprove) {
    if (rule.eventTypes && !rule.eventTypes.includes(event.eventType)) continue;
    if (rule.eventSources && !rule.eventSources.includes(event.eventSource ?? "")) continue;
    if (rule.maxDurationInSeconds !== undefined) {
      const d = event.durationInSeconds;
      if (d === null || d < 0 || d > rule.maxDurationInSeconds) continue;
    }
    return rule.name;
  }
  return null;
}

/** Invariant 1 lives here: approval is allowed only when every VM in Resources is confirmed
 *  drained, or a written policy or an operator's force says otherwise, and the rule is named. */
export function decideApproval(
  state: ClusterState,
  event: EventRecord,
  now: number,
  policy: Policy,
): ApprovalDecision {
  // Acknowledging an advisory event has no effect: no VM of it waits for a drain, and no rule
  // (not even an operator's force) makes it approvable.
  if (isAdvisoryEvent(event))
    return { blockers: [], drained: [], allowed: false, rule: "advisory", bypassesBudget: false };
  const blockers: Blocker[] = [];
  const drained: string[] = [];
  const rows = state.readiness[event.key] ?? dict<Readiness>();
  const disputes = event.resourceDisputes ?? [];
  for (const vm of event.resources) {
    const mk = memberKey(vm);
    const row = rows[mk];
    const member = state.members[mk];
    const drain = row?.drain ?? null;
    const dispute = disputes.find((d) => d.vm === mk);
    const hidden = member && imdsProblemBlocker(vm, member.imdsProblems);
    const unreadable = !member && state.unreadableMembers?.[mk];
    if (hidden) {
      // Its relay cannot read all of its document: the unreadable part may be this very event
      // with other Resources, or another one naming the VM, so its drain proves nothing yet.
      blockers.push(hidden);
    } else if (unreadable && policy.unmanagedVms === "block") {
      // Its member row does not parse: whether its relay is live, and what it could not read
      // in its IMDS document, are unknown. Its relay's next report rewrites the row.
      blockers.push({
        vm,
        reason: "noLiveRelay",
        detail: `its member row cannot be read (${unreadable}); its relay's next report rewrites it`,
      });
    } else if (drain?.status === "succeeded") {
      const lb = loadBalancerBlocker(row, vm, now, policy);
      if (lb) blockers.push(lb);
      else drained.push(vm);
    } else if (dispute) {
      blockers.push({
        vm,
        reason: "resourcesDisputed",
        detail: `${dispute.namedBy}'s document of incarnation ${dispute.incarnation} names it in Resources, its own relay's does not; waiting for a newer document, its drain, or an operator`,
      });
    } else if (drain?.status === "failed") {
      const lb = loadBalancerBlocker(row, vm, now, policy);
      if (policy.onDrainFailure === "proceed" && lb) blockers.push(lb);
      else if (policy.onDrainFailure === "proceed") drained.push(vm);
      else
        blockers.push({
          vm,
          reason: "drainFailed",
          detail: `drain hook failed${drain.detail ? `: ${drain.detail}` : ""}`,
        });
    } else if (!member && isAgentless(state, mk, policy)) {
      // No relay: the coordinator runs its drain (agentless.ts); it blocks like a relay's would.
      blockers.push({
        vm,
        reason: drain ? "draining" : "drainPending",
        detail: drain
          ? `the coordinator's drain hook ${drain.status} (attempt ${drain.attempt}; no relay on this VM)`
          : "no relay on this VM: the coordinator runs its drain hook",
      });
    } else if (!member) {
      if (policy.unmanagedVms === "block")
        blockers.push({
          vm,
          reason: "neverRegistered",
          detail: "no relay has ever reported for this VM",
        });
    } else if (!isLiveForEvent(member, event, now, policy)) {
      if (policy.unmanagedVms === "block")
        blockers.push({
          vm,
          reason: "noLiveRelay",
          detail: `relay last heard from ${Math.round((now - member.lastSeenAt) / 1000)} s ago`,
        });
    } else if (drain) {
      blockers.push({
        vm,
        reason: "draining",
        detail: `drain hook ${drain.status} (attempt ${drain.attempt})`,
      });
    } else {
      blockers.push({
        vm,
        reason: "drainPending",
        detail: row?.inDocument
          ? "relay saw the event; drain not started"
          : "relay has not reported the event yet",
      });
    }
  }

  const base = { blockers, drained };
  const deletesVms = DELETES_VMS.has(event.eventType);
  if (activeOverride(event.hold, now))
    return { ...base, allowed: false, rule: "held", bypassesBudget: false };
  if (activeOverride(event.force, now))
    return { ...base, allowed: true, rule: "forced", bypassesBudget: true };
  // A maintenance window holds even an auto-approve rule; only an operator's force wins.
  const deferral = windowDeferral(event, now, policy);
  if (deferral)
    return { ...deferral(base), allowed: false, rule: "deferred", bypassesBudget: false };
  const ruleName = matchingAutoApproveRule(event, policy);
  if (ruleName) return { ...base, allowed: true, rule: `policy:${ruleName}`, bypassesBudget: true };
  if (blockers.length === 0)
    return { ...base, allowed: true, rule: "allDrained", bypassesBudget: deletesVms };
  if (
    policy.onDrainOverdue === "proceed" &&
    event.notBefore !== null &&
    now >= event.notBefore - policy.drainDeadlineSecondsBeforeNotBefore * 1000
  )
    return { ...base, allowed: true, rule: "drainOverdue", bypassesBudget: deletesVms };
  return { ...base, allowed: false, rule: null, bypassesBudget: false };
}

function imdsProblemBlocker(vm: string, problems: Member["imdsProblems"]): Blocker | undefined {
  const hiding = (problems ?? []).filter(hidesEvents);
  const first = hiding[0];
  if (!first) return undefined;
  return {
    vm,
    reason: "imdsProblem",
    detail: `its relay cannot read its IMDS document: ${first.detail}${hiding.length > 1 ? ` (and ${hiding.length - 1} more)` : ""}`,
  };
}

/** Phases during which an event is taking VMs out of service (counts against the budget). */
export const IN_FLIGHT: ReadonlySet<Phase> = new Set([
  "Approving",
  "Started",
  "Recovering",
  "Unplanned",
  "ExpiredAtNotBefore",
]);

/**
 * Quarantined events (state.ts) not known to have ended: they hold a share of the budget, since
 * what their rows would say (and whether Azure started them) cannot be read.
 */
export function unreadableInFlight(state: ClusterState): string[] {
  return Object.entries(state.unreadableEvents ?? {})
    .filter(([, u]) => !u.ended)
    .map(([key]) => key);
}

/**
 * Events holding a share of the budget. Preempt and Terminate never do: they delete VMs anyway;
 * nor does an advisory event, whatever phase a row of an earlier release left it in.
 */
export function eventsInFlight(state: ClusterState, except: string): EventRecord[] {
  return Object.values(state.events).filter(
    (e) =>
      e.key !== except &&
      e.endedAt === null &&
      IN_FLIGHT.has(e.phase) &&
      !DELETES_VMS.has(e.eventType) &&
      !isAdvisoryEvent(e),
  );
}
