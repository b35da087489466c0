import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { Directive, RelayReport } from "@quiesce/protocol/relay";
import { isAdvisoryEvent } from "../model/eventTypes";
import {
  type ClusterState,
  type EventRecord,
  LIVENESS_GRANULARITY_SHARE,
  memberKey,
} from "../model/state";
import { decideApproval } from "./approval";
import { isLiveForEvent } from "./liveness";

/** How soon a relay that may be handed a budget-blocked event should report again. */
export const HANDOFF_REPORT_SECONDS = 1;

/**
 * A bystander (its VM sees events but none names it, and it need not approve them) reports no
 * more often than this: its heartbeats only keep it live (a third of `livenessTimeoutSeconds`
 * at the default), and a document change is reported at once whatever the interval. In a
 * maintenance wave it is most of a group's VMs, and so most of the load on the cluster's
 * partitions (docs/coordinator.md, "Scale limits").
 */
export const BYSTANDER_REPORT_SECONDS = 30;

/**
 * When the reporting relay should report again:
 * - within a second while it could approve an event that waits only for the cluster's budget, so
 *   the budget is handed on as soon as it is freed;
 * - at the active interval while its VM takes part in an event (named in `Resources`, or with
 *   hook state owed), its hooks run, it was given directives, or it may have to approve an event
 *   because no VM the event names can (dead, dry-run, or failed approvers);
 * - every BYSTANDER_REPORT_SECONDS (at most the idle interval) while it only sees events;
 * - at the idle interval otherwise.
 * An advisory event asks nothing of any relay: its VM is a bystander to it (a document change,
 * such as the Preempt that may follow, is reported at once anyway).
 */
export function reportInterval(
  state: ClusterState,
  mk: string,
  docEvents: ReadonlyMap<string, ScheduledEvent>,
  report: RelayReport,
  directives: Directive[],
  now: number,
  policy: Policy,
): number {
  const member = state.members[mk];
  const mayApprove = (e: EventRecord) =>
    member !== undefined &&
    !member.dryRun &&
    !isAdvisoryEvent(e) &&
    !e.failedApprovers.includes(mk) &&
    docEvents.get(e.key)?.EventStatus === "Scheduled" &&
    (names(e, mk) || !namedCanApprove(state, e, now, policy));
  const waitingForBudget = Object.values(state.events).some(
    (e) =>
      e.phase === "Ready" &&
      e.lease === null &&
      mayApprove(e) &&
      decideApproval(state, e, now, policy).allowed,
  );
  if (waitingForBudget) return Math.min(policy.activeReportSeconds, HANDOFF_REPORT_SECONDS);
  const takesPart = Object.values(state.events).some((e) => {
    if (e.endedAt !== null || isAdvisoryEvent(e)) return false;
    const row = state.readiness[e.key]?.[mk];
    return names(e, mk) || (row?.drain ?? null) !== null || (row?.recover ?? null) !== null;
  });
  const mayBeElected = Object.values(state.events).some((e) => e.endedAt === null && mayApprove(e));
  const running = report.hooks.some(
    (h) => h.drain?.status === "running" || h.recover?.status === "running",
  );
  // A defer directive goes with every answer in a cluster with windows: it asks for no speed.
  const acting = directives.some((d) => d.kind !== "defer");
  if (acting || running || takesPart || mayBeElected) return policy.activeReportSeconds;
  if (docEvents.size > 0) return bystanderInterval(policy);
  return policy.idleReportSeconds;
}

/**
 * At most BYSTANDER_REPORT_SECONDS, and at most a third of the liveness timeout, so a bystander
 * stays live between heartbeats whatever the policy sets; never faster than the active interval
 * nor slower than the idle one.
 */
export function bystanderInterval(policy: Policy): number {
  const keepsLive = policy.livenessTimeoutSeconds * LIVENESS_GRANULARITY_SHARE;
  const wanted = Math.min(BYSTANDER_REPORT_SECONDS, keepsLive);
  return Math.min(policy.idleReportSeconds, Math.max(policy.activeReportSeconds, wanted));
}

const names = (e: EventRecord, mk: string) => e.resources.some((r) => memberKey(r) === mk);

/** Some VM the event names could still be elected: live for it, not dry-run, not a failed approver. */
function namedCanApprove(state: ClusterState, e: EventRecord, now: number, policy: Policy) {
  return e.resources.some((r) => {
    const k = memberKey(r);
    const m = state.members[k];
    return (
      m !== undefined &&
      !m.dryRun &&
      !e.failedApprovers.includes(k) &&
      isLiveForEvent(m, e, now, policy)
    );
  });
}
