import type { FabricState } from "../../model/types";
import type { VmRecord } from "../../topology/topology";
import { type ArmAnswer, armError, ok, resourceNotFound } from "../errors";
import {
  type ArmScope,
  availabilitySetRef,
  instanceIdOf,
  isUniformInstance,
  nicId,
  sameName,
} from "../ids";
import type { ArmCall } from "./call";

/**
 * Microsoft.Compute reads (2024-07-01 shapes): a VM and a Uniform scale-set instance. `vmId` and
 * the ids are the ones the VM's IMDS reports (`compute.vmId`, `compute.resourceId`), so a
 * coordinator can check an attested vmId against ARM exactly as on Azure.
 */

const common = (vm: VmRecord) => ({
  location: vm.location,
  ...(vm.zone ? { zones: [vm.zone] } : {}),
});

function vmProperties(scope: ArmScope, vm: VmRecord) {
  return {
    vmId: vm.vmId,
    hardwareProfile: { vmSize: "Standard_D2s_v5" },
    osProfile: { computerName: vm.computerName },
    networkProfile: {
      networkInterfaces: [{ id: nicId(scope, vm), properties: { primary: true } }],
    },
    provisioningState: "Succeeded",
  };
}

export function renderVm(state: FabricState, vm: VmRecord): unknown {
  const scope = state.topology;
  const group = state.groups[vm.group];
  return {
    name: vm.name,
    id: vm.resourceId,
    type: "Microsoft.Compute/virtualMachines",
    ...common(vm),
    properties: {
      ...vmProperties(scope, vm),
      ...(group?.kind === "availabilitySet"
        ? { availabilitySet: { id: availabilitySetRef(scope, group.name) } }
        : {}),
    },
  };
}

export function renderScaleSetVm(state: FabricState, vm: VmRecord): unknown {
  return {
    name: vm.name,
    id: vm.resourceId,
    type: "Microsoft.Compute/virtualMachineScaleSets/virtualMachines",
    instanceId: instanceIdOf(vm),
    ...common(vm),
    properties: { latestModelApplied: true, ...vmProperties(state.topology, vm) },
  };
}

/** A VM that is not a scale-set instance, by name (deleted ones are gone, as on Azure). */
export const findPlainVm = (state: FabricState, name: string) =>
  Object.values(state.vms).find(
    (v) => !isUniformInstance(v) && !v.deleted && sameName(v.name, name),
  );

const scaleSetExists = (state: FabricState, name: string) =>
  Object.values(state.groups).some(
    (g) => g.scaleSetName !== undefined && sameName(g.scaleSetName, name),
  );

export function findInstance(state: FabricState, scaleSet: string, instanceId: string) {
  return Object.values(state.vms).find(
    (v) =>
      isUniformInstance(v) &&
      !v.deleted &&
      sameName(v.vmScaleSetName ?? "", scaleSet) &&
      instanceIdOf(v) === instanceId,
  );
}

export function getVm(call: ArmCall): ArmAnswer {
  const state = call.arm.fabric.state();
  const vm = findPlainVm(state, call.params.vmName as string);
  if (!vm) {
    return resourceNotFound(
      "Microsoft.Compute/virtualMachines",
      call.params.vmName as string,
      state.topology.resourceGroupName,
    );
  }
  return ok(renderVm(state, vm));
}

/**
 * The scale set missing is ARM's ResourceNotFound; an instance missing from an existing scale set
 * is Compute's own NotFound (its wording as clients report it; not in the API reference).
 */
export function scaleSetInstanceOr404(call: ArmCall): VmRecord | ArmAnswer {
  const state = call.arm.fabric.state();
  const { scaleSet, instanceId } = call.params as { scaleSet: string; instanceId: string };
  if (!scaleSetExists(state, scaleSet)) {
    return resourceNotFound(
      "Microsoft.Compute/virtualMachineScaleSets",
      scaleSet,
      state.topology.resourceGroupName,
    );
  }
  return (
    findInstance(state, scaleSet, instanceId) ??
    armError(404, "NotFound", "The entity was not found in this Azure location.")
  );
}

export function getScaleSetVm(call: ArmCall): ArmAnswer {
  const vm = scaleSetInstanceOr404(call);
  if ("status" in vm) return vm;
  return ok(renderScaleSetVm(call.arm.fabric.state(), vm));
}
