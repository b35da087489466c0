import type { z } from "zod";
import type { Refusal } from "../model/types";
import type { AlertRuleSpec } from "../topology/armTopology";
import type { Topology } from "../topology/topology";
import type { FireAlert } from "./commands";
import { type ArmScope, alertId, alertRuleId, resourceGroupId, sameName } from "./ids";
import type { AlertInstance, ArmWorld } from "./types";

/**
 * Azure Monitor alerts as Alerts Management lists them (2019-05-05-preview): each metric alert
 * rule fires an alert instance (monitorCondition Fired, alertState New), which stays until the
 * rule resolves it; firing again while Fired changes nothing, as a stateful metric alert does.
 * Times are simulated (the fabric's clock), like every other fabric time.
 */

type Result<T> = { ok: true; value: T } | { ok: false; error: Refusal };

export interface AlertRule {
  readonly name: string;
  readonly severity: string;
  readonly description?: string;
}

export function alertRules(topology: Topology): AlertRule[] {
  return (topology.alertRules ?? []).map((r: AlertRuleSpec) =>
    typeof r === "string" ? { name: r, severity: "Sev3" } : r,
  );
}

const findRule = (topology: Topology, name: string) =>
  alertRules(topology).find((r) => sameName(r.name, name));

export function fireAlert(
  world: ArmWorld,
  topology: Topology,
  cmd: z.infer<typeof FireAlert> & { alertId: string },
  nowMs: number,
): Result<{ world: ArmWorld; alert: AlertInstance }> {
  const rule = findRule(topology, cmd.rule);
  if (!rule) return { ok: false, error: { status: 404, message: `no alert rule ${cmd.rule}` } };
  const firing = world.alerts.find((a) => a.rule === rule.name && a.monitorCondition === "Fired");
  if (firing) return { ok: true, value: { world, alert: firing } };
  const description = cmd.description ?? rule.description;
  const alert: AlertInstance = {
    alertId: cmd.alertId,
    rule: rule.name,
    severity: cmd.severity ?? rule.severity,
    ...(description !== undefined ? { description } : {}),
    monitorCondition: "Fired",
    alertState: "New",
    startedAtMs: nowMs,
    modifiedAtMs: nowMs,
  };
  return { ok: true, value: { world: { ...world, alerts: [...world.alerts, alert] }, alert } };
}

export function resolveAlert(
  world: ArmWorld,
  topology: Topology,
  ruleName: string,
  nowMs: number,
): Result<{ world: ArmWorld; alert: AlertInstance }> {
  const rule = findRule(topology, ruleName);
  if (!rule) return { ok: false, error: { status: 404, message: `no alert rule ${ruleName}` } };
  const firing = world.alerts.find((a) => a.rule === rule.name && a.monitorCondition === "Fired");
  if (!firing) return { ok: false, error: { status: 409, message: `${rule.name} is not firing` } };
  const resolved: AlertInstance = {
    ...firing,
    monitorCondition: "Resolved",
    modifiedAtMs: nowMs,
    resolvedAtMs: nowMs,
  };
  return {
    ok: true,
    value: {
      world: { ...world, alerts: world.alerts.map((a) => (a === firing ? resolved : a)) },
      alert: resolved,
    },
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** One alert as `GET …/providers/Microsoft.AlertsManagement/alerts` lists it. */
export function renderAlert(scope: ArmScope, a: AlertInstance): unknown {
  return {
    properties: {
      essentials: {
        severity: a.severity,
        signalType: "Metric",
        alertState: a.alertState,
        monitorCondition: a.monitorCondition,
        monitorService: "Platform",
        targetResource: resourceGroupId(scope),
        targetResourceName: scope.resourceGroupName,
        targetResourceGroup: scope.resourceGroupName,
        targetResourceType: "resourcegroups",
        sourceCreatedId: a.alertId,
        alertRule: alertRuleId(scope, a.rule),
        startDateTime: iso(a.startedAtMs),
        lastModifiedDateTime: iso(a.modifiedAtMs),
        lastModifiedUserName: "System",
        ...(a.resolvedAtMs !== undefined
          ? { monitorConditionResolvedDateTime: iso(a.resolvedAtMs) }
          : {}),
        actionStatus: { isSuppressed: false },
        ...(a.description !== undefined ? { description: a.description } : {}),
      },
      egressConfig: {},
      context: {},
    },
    id: alertId(scope, a.alertId),
    type: "Microsoft.AlertsManagement/alerts",
    name: a.rule,
  };
}

/** The `Alerts_GetAll` filters the simulator honours; newest change first, as the default sort. */
export function filterAlerts(
  scope: ArmScope,
  alerts: readonly AlertInstance[],
  q: URLSearchParams,
): AlertInstance[] {
  const eq = (param: string, value: string) => {
    const want = q.get(param);
    return want === null || sameName(want, value);
  };
  return alerts
    .filter(
      (a) =>
        eq("alertRule", alertRuleId(scope, a.rule)) &&
        eq("monitorCondition", a.monitorCondition) &&
        eq("alertState", a.alertState) &&
        eq("severity", a.severity) &&
        eq("targetResourceGroup", scope.resourceGroupName),
    )
    .sort((x, y) => y.modifiedAtMs - x.modifiedAtMs);
}
