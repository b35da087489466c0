import { z } from "zod";
import { type ArmAnswer, armError, invalidContent, ok } from "../errors";
import type { ArmCall } from "./call";

/**
 * `ApplyUpdates_CreateOrUpdateOrCancel` on a maintenance configuration's run: `PUT …/
 * maintenanceConfigurations/{name}/providers/Microsoft.Maintenance/applyUpdates/{run}` with
 * `{"properties":{"status":"Cancel"}}` answers 200 with the run as the spec's example shows it
 * (`status: Cancelled`, `resourceId` the configuration, ids in lower case). Only the cancel is
 * served: an apply of updates to a configuration is not something Quiesce asks for.
 */
const CancelBody = z.looseObject({
  properties: z.looseObject({ status: z.string() }),
});

export async function putApplyUpdate(call: ArmCall): Promise<ArmAnswer> {
  const body = await call.body();
  if (!body.ok) return body.answer;
  const parsed = CancelBody.safeParse(body.value);
  if (!parsed.success || parsed.data.properties.status !== "Cancel")
    return invalidContent(
      'the simulator serves only {"properties":{"status":"Cancel"}} on a configuration\'s run',
    );
  const r = call.arm.patchRuns.cancel(call.path, call.arm.now().simMs);
  if (!r.ok)
    return r.error.status === 404
      ? armError(404, "ResourceNotFound", r.error.message)
      : armError(400, "BadRequest", r.error.message);
  const id = r.value.correlationId.toLowerCase();
  return ok({
    name: call.params.configName,
    type: "Microsoft.Maintenance/applyUpdates",
    id,
    properties: { resourceId: r.value.configurationId.toLowerCase(), status: "Cancelled" },
  });
}
