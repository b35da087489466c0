import type { ClusterState } from "@quiesce/core";
import type { Logger } from "@quiesce/protocol";
import { getActionRule, scopeActionRule } from "../arm/actionRules";
import type { ArmClient } from "../arm/client";
import type { Policies } from "../options";
import {
  type MaintenanceGauges,
  type MaintenanceVm,
  maintenanceActiveVms,
} from "../telemetry/maintenanceActive";

/**
 * The "maintenance active" signal after each sweep (docs/operations.md, "Silencing your own
 * alerts during maintenance"): the gauges from every ticked cluster's state (a cluster the sweep
 * no longer ticks has no event left, so nothing of it is in maintenance), and each alert
 * processing rule a policy names scoped to exactly the VMs under maintenance of the clusters
 * naming it: enabled while there are any, disabled (its last scopes kept, as a rule needs one)
 * when none. Level-triggered: every sweep reads each rule and writes it only when it differs, so
 * a failed write, a restart or a hand edit is put right at the next sweep.
 */
export interface SignalSummary {
  vms: number;
  rulesWritten: number;
  rulesFailed: number;
}

export async function syncMaintenanceSignal(
  deps: { policies: Policies; gauges: MaintenanceGauges; arm: ArmClient | null },
  ticked: ReadonlyMap<string, ClusterState>,
  log: Logger,
  /** Clusters the sweep could not tick this time (a conflict): what they had is kept. */
  skipped: readonly string[] = [],
): Promise<SignalSummary> {
  const byCluster = new Map<string, readonly MaintenanceVm[]>();
  const before = deps.gauges.snapshot();
  for (const cluster of skipped) {
    const kept = before.get(cluster);
    if (kept) byCluster.set(cluster, kept);
  }
  for (const [cluster, state] of ticked) byCluster.set(cluster, maintenanceActiveVms(state));
  deps.gauges.replace(byCluster);
  const summary: SignalSummary = {
    vms: [...byCluster.values()].reduce((n, vms) => n + vms.length, 0),
    rulesWritten: 0,
    rulesFailed: 0,
  };
  const wanted = desiredScopes(deps.policies, byCluster);
  if (wanted.size === 0) return summary;
  if (!deps.arm) {
    log.warn("maintenance signal: alert processing rules are named but the control plane is off");
    return summary;
  }
  for (const [rule, scopes] of wanted) {
    const r = await syncRule(deps.arm, rule, scopes);
    if (r === "written") summary.rulesWritten++;
    if (typeof r === "object") {
      summary.rulesFailed++;
      log.warn("maintenance signal: alert processing rule not updated", { rule, error: r.error });
    }
  }
  return summary;
}

/** Each rule a policy names, with the VM ids it must be scoped to now (lower case, sorted). */
export function desiredScopes(
  policies: Policies,
  byCluster: ReadonlyMap<string, readonly MaintenanceVm[]>,
): Map<string, string[]> {
  const wanted = new Map<string, Set<string>>();
  const name = (rule: string) => {
    const key = rule.toLowerCase();
    if (!wanted.has(key)) wanted.set(key, new Set());
    return wanted.get(key) as Set<string>;
  };
  const { all } = policies;
  for (const rule of all.default.maintenanceSignal.alertProcessingRules) name(rule);
  for (const p of all.clusters.values())
    for (const rule of p.maintenanceSignal.alertProcessingRules) name(rule);
  for (const [cluster, vms] of byCluster)
    for (const rule of policies.for(cluster).maintenanceSignal.alertProcessingRules)
      for (const v of vms) if (v.resourceId) name(rule).add(v.resourceId);
  return new Map([...wanted].map(([rule, ids]) => [rule, [...ids].sort()]));
}

async function syncRule(
  arm: ArmClient,
  rule: string,
  scopes: readonly string[],
): Promise<"same" | "written" | { error: string }> {
  const read = await getActionRule(arm, rule);
  if (!read.ok) return { error: `${read.error.status} ${read.error.code}: ${read.error.message}` };
  const enabled = scopes.length > 0;
  const current = read.value.properties;
  const sameScopes =
    [...current.scopes]
      .map((s) => s.toLowerCase())
      .sort()
      .join("\n") === scopes.join("\n");
  if ((current.enabled ?? true) === enabled && (sameScopes || !enabled)) return "same";
  const written = await scopeActionRule(
    arm,
    rule,
    read.value,
    enabled ? scopes : current.scopes,
    enabled,
  );
  return written.ok
    ? "written"
    : { error: `${written.error.status} ${written.error.code}: ${written.error.message}` };
}
