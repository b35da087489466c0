import type { VmRecord } from "../topology/topology";

/**
 * The ARM resource ids the simulator serves, built in one place so a VM's NIC, its ipconfig and
 * the pool that references it can never disagree. ARM compares ids case-insensitively; so does
 * every lookup here (`sameId`).
 */

import { type ArmScope, provider, subscriptionId } from "../topology/armIds";

export {
  type ArmScope,
  availabilitySetId,
  resourceGroupId,
  scaleSetId,
  subscriptionId,
} from "../topology/armIds";

export const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
export const sameName = sameId;

/**
 * Compute answers an availability set reference in upper case (`…/AVSET-WEB`), unlike the id it
 * was created with; a client must compare ids case-insensitively, and the simulator makes sure it
 * does. (Observed behaviour, not in the API reference's example; see docs/fabric-simulator.md.)
 */
export const availabilitySetRef = (t: ArmScope, name: string) =>
  `${subscriptionId(t)}/resourceGroups/${t.resourceGroupName.toUpperCase()}/providers/Microsoft.Compute/availabilitySets/${name.toUpperCase()}`;

/** Flexible scale-set VMs are ordinary VMs to Compute and Network; Uniform instances are not. */
export const isUniformInstance = (vm: VmRecord) => vm.orchestrationMode === "Uniform";

/** A Uniform scale-set instance's id ends in its instance id (`…/virtualMachines/3`). */
export const instanceIdOf = (vm: VmRecord) =>
  vm.resourceId.slice(vm.resourceId.lastIndexOf("/") + 1);

/**
 * A VM's one NIC. Standalone and availability-set VMs get `<vm>-nic` in Microsoft.Network; a
 * Uniform scale-set instance's NIC lives under the instance and is named after the scale set's
 * network profile (`<scaleSet>-nic`, the same name on every instance, as in Azure).
 */
export function nicName(vm: VmRecord): string {
  return isUniformInstance(vm) ? `${vm.vmScaleSetName}-nic` : `${vm.name}-nic`;
}

export function nicId(t: ArmScope, vm: VmRecord): string {
  return isUniformInstance(vm)
    ? `${vm.resourceId}/networkInterfaces/${nicName(vm)}`
    : `${provider(t, "Microsoft.Network")}/networkInterfaces/${nicName(vm)}`;
}

export const IPCONFIG_NAME = "ipconfig1";
export const ipConfigId = (t: ArmScope, vm: VmRecord) =>
  `${nicId(t, vm)}/ipConfigurations/${IPCONFIG_NAME}`;

export const loadBalancerId = (t: ArmScope, lb: string) =>
  `${provider(t, "Microsoft.Network")}/loadBalancers/${lb}`;
export const poolId = (t: ArmScope, lb: string, pool: string) =>
  `${loadBalancerId(t, lb)}/backendAddressPools/${pool}`;

export const alertRuleId = (t: ArmScope, rule: string) =>
  `${provider(t, "Microsoft.Insights")}/metricAlerts/${rule}`;
export const alertId = (t: ArmScope, id: string) =>
  `${subscriptionId(t)}/providers/Microsoft.AlertsManagement/alerts/${id}`;

export const userAssignedIdentityId = (t: ArmScope, name: string) =>
  `${provider(t, "Microsoft.ManagedIdentity")}/userAssignedIdentities/${name}`;

/** Whether `scope` is `id` or one of its ancestors, segment by segment, case-insensitively. */
export function covers(scope: string, id: string): boolean {
  const s = scope.toLowerCase().replace(/\/+$/, "");
  const i = id.toLowerCase();
  return s === "" || s === "/" || i === s || i.startsWith(`${s}/`);
}
