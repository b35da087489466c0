import { z } from "zod";

/**
 * The "maintenance active" signal a cluster's team can silence its own alerts with
 * (docs/operations.md, "Silencing your own alerts during maintenance"): the metric is always on;
 * the alert processing rules named here (Microsoft.AlertsManagement/actionRules, e.g. from
 * infra/examples/alert-suppression) are kept scoped to exactly the VMs under maintenance through
 * ARM, enabled while there are any, disabled when none.
 */
const AlertProcessingRuleId = z
  .string()
  .max(1024)
  .regex(
    /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.AlertsManagement\/actionRules\/[^/]+$/i,
    "an alert processing rule's ARM id (…/providers/Microsoft.AlertsManagement/actionRules/{name})",
  );

export const MaintenanceSignal = z.strictObject({
  alertProcessingRules: z.array(AlertProcessingRuleId).max(16).default([]),
});
export type MaintenanceSignal = z.infer<typeof MaintenanceSignal>;
