import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { Directive, RelayReport } from "@quiesce/protocol/relay";
import { decideApproval } from "./approval";
import type { ClusterState } from "./state";

/** How soon a relay that may be handed a budget-blocked event should report again. */
export const HANDOFF_REPORT_SECONDS = 1;

/**
 * When the reporting relay should report again: the active interval while it sees events, has
 * hooks running, was given directives, or its VM takes part in an event not yet ended (a recover
 * owed after the event left its document); faster while it could approve an event that waits
 * only for the cluster's budget, so the budget is handed on within a second of being freed even
 * when the report that frees it comes from a relay that cannot approve the next event; the idle
 * interval otherwise.
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
  const waitingForBudget = Object.values(state.events).some(
    (e) =>
      e.phase === "Ready" &&
      e.lease === null &&
      docEvents.get(e.key)?.EventStatus === "Scheduled" &&
      member !== undefined &&
      !member.dryRun &&
      !e.failedApprovers.includes(mk) &&
      decideApproval(state, e, now, policy).allowed,
  );
  if (waitingForBudget) return Math.min(policy.activeReportSeconds, HANDOFF_REPORT_SECONDS);
  const takesPart = Object.values(state.events).some(
    (e) => e.endedAt === null && state.readiness[e.key]?.[mk] !== undefined,
  );
  const running = report.hooks.some(
    (h) => h.drain?.status === "running" || h.recover?.status === "running",
  );
  return docEvents.size > 0 || directives.length > 0 || running || takesPart
    ? policy.activeReportSeconds
    : policy.idleReportSeconds;
}
