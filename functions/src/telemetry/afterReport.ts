import type { ClusterState, Decision } from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { HandlerDeps } from "../handlers/deps";
import { imdsNotification, newlyDue } from "../notify/core";
import { decisionFacts } from "./facts";

/**
 * After a report's decision is committed: its metrics, and the notifications it made due,
 * handed to the notifier in the background. Runs after the commit so nothing here can hold up
 * or undo a decision; an idle heartbeat costs a few reference comparisons.
 */
export function afterReport(
  deps: HandlerDeps,
  report: RelayReport,
  before: ClusterState,
  decision: Decision,
  policy: Policy,
  attempts: number,
  conflicts: number,
): void {
  const cluster = report.cluster;
  deps.telemetry.report(cluster, decision.applied ? "applied" : "stale", attempts, conflicts);
  if (decision.state === before && !report.imds) return;
  deps.telemetry.recordFacts(cluster, decisionFacts(before, decision));
  const due = newlyDue(before, decision.state, deps.clock.now(), policy);
  const imds = imdsNotification(cluster, report.vm.name, report.imds, policy);
  if (imds) due.push(imds);
  deps.notifier.afterCommit(due, policy);
}
