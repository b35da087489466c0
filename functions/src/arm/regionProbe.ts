import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { acknowledgeScheduledEvent } from "./acknowledge";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";
import { parseResourceId, resourcePath } from "./resourceId";
import type { AcknowledgeScope } from "./scope";
import { COMPUTE_API_VERSION } from "./virtualMachine";

/**
 * The probe of whether the Maintenance RP acknowledges in a scope's region: an acknowledge of an
 * event id that is well formed but names no event. Where the RP serves the region it answers
 * `404 InvalidScheduledEventId` "Scheduled event not found" (or a 207 with that code); where it
 * does not, `405 NotImplemented` "This operation is not supported in the region of resource
 * provided" (the Azure CLI's response tests, test/contracts/fixtures/arm-acknowledge). Harmless:
 * no event has this id, so nothing can be approved. The all-zero GUID is the id the Azure CLI's
 * own live scenario acknowledges for the same purpose (Azure/azure-cli-extensions
 * `src/maintenance/azext_maintenance/tests/latest/test_maintenance_scenario.py`,
 * `step__scheduledevent_acknowledge`).
 */
export const PROBE_EVENT_ID = "00000000-0000-0000-0000-000000000000";

/** The probe's answer in the acknowledge's terms: never `ok` unless the RP approved (it cannot). */
export async function probeAcknowledge(
  arm: ArmClient,
  scope: AcknowledgeScope,
): Promise<{ ok: true } | { ok: false; status: number; code: string; message: string }> {
  const r = await acknowledgeScheduledEvent(arm, scope, PROBE_EVENT_ID);
  return r.ok
    ? { ok: true }
    : { ok: false, status: r.error.status, code: r.error.code, message: r.error.message };
}

/** Every ARM resource carries its `location`; nothing else of the VM is read here. */
const Located = z.looseObject({ location: z.string().min(1).max(64) });

/**
 * The Azure region of a Compute resource (a VM, a Uniform scale-set instance, a scale set, an
 * availability set): `GET` of it, its `location`, at the api-version of the acknowledge's scope
 * resolution (virtualMachine.ts). Instance metadata has it, but a relay does not report it.
 * Lower case, as Azure names regions.
 */
export async function resourceRegion(
  arm: ArmClient,
  resourceId: string,
): Promise<Result<string, ArmError>> {
  const id = parseResourceId(resourceId);
  if (id?.namespace.toLowerCase() !== "microsoft.compute")
    return {
      ok: false,
      error: localError("InvalidResourceId", `${resourceId} is not a Compute resource id`),
    };
  const got = await arm.request({
    method: "GET",
    path: resourcePath(id),
    apiVersion: COMPUTE_API_VERSION,
    schema: Located,
    operation: "resourceRegion",
  });
  return got.ok ? { ok: true, value: got.value.body.location.toLowerCase() } : got;
}

/** The acknowledge scope an Azure resource id names (an availability set, scale set or VM). */
export function scopeOfResource(resourceId: string): AcknowledgeScope | null {
  const id = parseResourceId(resourceId);
  const type = id?.resources.length === 1 ? id.resources[0]?.type.toLowerCase() : undefined;
  const resourceType =
    type === "availabilitysets"
      ? "availabilitySets"
      : type === "virtualmachinescalesets"
        ? "virtualMachineScaleSets"
        : type === "virtualmachines"
          ? "virtualMachines"
          : null;
  if (!id || !resourceType || id.namespace.toLowerCase() !== "microsoft.compute") return null;
  return {
    subscriptionId: id.subscriptionId,
    resourceGroup: id.resourceGroup,
    resourceType,
    name: id.resources[0]?.name ?? "",
  };
}
