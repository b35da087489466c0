import { filterAlerts, renderAlert } from "../alerts";
import { type ArmAnswer, ok } from "../errors";
import type { ArmCall } from "./call";

/**
 * `GET /subscriptions/{s}/providers/Microsoft.AlertsManagement/alerts` (Alerts_GetAll,
 * 2019-05-05-preview), filtered by `alertRule`, `monitorCondition`, `alertState`, `severity` and
 * `targetResourceGroup`. One page, no `nextLink`; `timeRange` (Azure's default: the last day) is
 * not applied, so a resolved alert stays listed until the fabric is reset.
 */
export function listAlerts(call: ArmCall): ArmAnswer {
  const scope = call.arm.topology();
  const alerts = filterAlerts(scope, call.arm.alerts(), call.query);
  return ok({ value: alerts.map((a) => renderAlert(scope, a)) });
}
