import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import type { ArmError } from "./armError";
import type { ArmClient, ArmResponse } from "./client";
import { isResourceType, type ResourceId, resourcePath } from "./resourceId";

/**
 * GET of a VM, or of a Uniform scale set's instance: the few properties the control-plane
 * operations read (its availability set or Flexible scale set, its NICs), everything else kept
 * loose so a new Compute property never fails the parse.
 *
 * api-version 2024-07-01: a GA Compute version that has every property read here
 * (`availabilitySet`, `virtualMachineScaleSet` for Flexible members, `networkProfile`); nothing
 * newer is needed, and a fixed version keeps the answer's shape fixed.
 */
export const COMPUTE_API_VERSION = "2024-07-01";

const SubResource = z.looseObject({ id: z.string() });

export const VirtualMachine = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  properties: z
    .looseObject({
      vmId: z.string().optional(),
      availabilitySet: SubResource.optional(),
      /** Set on a Flexible scale set's member VMs. */
      virtualMachineScaleSet: SubResource.optional(),
      networkProfile: z
        .looseObject({ networkInterfaces: z.array(SubResource).optional() })
        .optional(),
    })
    .optional(),
});
export type VirtualMachine = z.infer<typeof VirtualMachine>;

/** A standalone or Flexible VM (`…/virtualMachines/{name}`), or a Uniform instance (`…/virtualMachineScaleSets/{vmss}/virtualMachines/{i}`). */
export function isVirtualMachineId(id: ResourceId): boolean {
  return (
    isResourceType(id, "Microsoft.Compute", ["virtualMachines"]) ||
    isResourceType(id, "Microsoft.Compute", ["virtualMachineScaleSets", "virtualMachines"])
  );
}

export function getVirtualMachine(
  arm: ArmClient,
  vm: ResourceId,
  operation: string,
): Promise<Result<ArmResponse<VirtualMachine>, ArmError>> {
  return arm.request({
    method: "GET",
    path: resourcePath(vm),
    apiVersion: COMPUTE_API_VERSION,
    schema: VirtualMachine,
    operation,
  });
}
