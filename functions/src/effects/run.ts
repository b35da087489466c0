import type { Policy } from "@quiesce/protocol/policy";
import type { Notification } from "../notify/due";
import type { Telemetry } from "../telemetry/metrics";
import type { Effects } from "./derive";

/** Where effects go: the metrics, and a queue for notifications. */
export interface EffectTargets {
  telemetry: Telemetry;
  /**
   * The report path and operator actions hand notifications to the notifier at once (queued and
   * delivered in the background); the sweep holds them until every cluster was ticked.
   */
  notify(notifications: readonly Notification[], policy: Policy): void;
}

/** The thin shell around derive.ts: no decision here, only execution, in the order derived. */
export function runEffects(to: EffectTargets, e: Effects): void {
  if (e.report)
    to.telemetry.report(e.cluster, e.report.outcome, e.report.attempts, e.report.conflicts);
  if (e.facts.length > 0) to.telemetry.recordFacts(e.cluster, e.facts);
  if (e.blockers) to.telemetry.setBlockers(e.cluster, e.blockers);
  if (e.coverage) to.telemetry.setCoverage(e.coverage);
  to.notify(e.notifications, e.policy);
}
