import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";
import { armPath } from "./resourceId";

/**
 * Cancelling one scheduled Update Manager run: `ApplyUpdates_CreateOrUpdateOrCancel`, a PUT of
 * `{"properties": {"status": "Cancel"}}` on the run's applyUpdates resource under its maintenance
 * configuration (…/maintenanceConfigurations/{name}/providers/Microsoft.Maintenance/applyUpdates/
 * {yyyyMMddHHmm00}), which is the pre-maintenance event's `CorrelationId`. The RP answers 200 or
 * 201 with `properties.status` `Cancelled` (azure-rest-api-specs, Microsoft.Maintenance
 * 2025-11-01 `ApplyUpdates_CreateOrUpdate_CancelMaintenance.json`; `UpdateStatus`: "Cancel: Cancel
 * the schedule and stop creating PMR for resources part of it. Applicable to Maintenance
 * Configuration resource type only."). Only a pre-event's handler can cancel, before its
 * `CancellationCutOffDateTime` (learn.microsoft.com, Update Manager "pre and post events").
 *
 * api-version 2025-11-01: the GA version whose spec carries that example (the acknowledge's too).
 */
export const APPLY_UPDATES_API_VERSION = "2025-11-01";

const RUN_ID =
  /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Maintenance\/maintenanceConfigurations\/[^/]+\/providers\/Microsoft\.Maintenance\/applyUpdates\/[^/]+$/i;

const ApplyUpdate = z.looseObject({
  properties: z.looseObject({ status: z.string().optional() }).optional(),
});

export interface RunCancelled {
  status: number;
  /** What the RP says the run is now: `Cancelled` in its example. */
  runStatus: string | null;
  attempts: number;
}

export async function cancelMaintenanceRun(
  arm: ArmClient,
  correlationId: string,
): Promise<Result<RunCancelled, ArmError>> {
  if (!RUN_ID.test(correlationId))
    return {
      ok: false,
      error: localError(
        "InvalidResourceId",
        `not a maintenance run's applyUpdates id: ${correlationId}`,
      ),
    };
  const answer = await arm.request({
    method: "PUT",
    path: armPath(...correlationId.split("/").slice(1)),
    apiVersion: APPLY_UPDATES_API_VERSION,
    body: { properties: { status: "Cancel" } },
    schema: ApplyUpdate,
    operation: "cancelMaintenanceRun",
  });
  if (!answer.ok) return answer;
  return {
    ok: true,
    value: {
      status: answer.value.status,
      runStatus: answer.value.body.properties?.status ?? null,
      attempts: answer.value.attempts,
    },
  };
}
