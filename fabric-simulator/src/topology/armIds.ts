import type { Topology } from "./topology";

/**
 * The ARM ids of the simulated subscription's resource group and groups: shared by the loopback
 * ARM (arm/ids.ts builds the rest on these) and what the fabric publishes off the VM
 * (maintenance/published.ts), which must not depend on the ARM folder that serves it.
 */
export type ArmScope = Pick<Topology, "subscriptionId" | "resourceGroupName">;

export const subscriptionId = (t: ArmScope) => `/subscriptions/${t.subscriptionId}`;
export const resourceGroupId = (t: ArmScope) =>
  `${subscriptionId(t)}/resourceGroups/${t.resourceGroupName}`;
export const provider = (t: ArmScope, namespace: string) =>
  `${resourceGroupId(t)}/providers/${namespace}`;

export const availabilitySetId = (t: ArmScope, name: string) =>
  `${provider(t, "Microsoft.Compute")}/availabilitySets/${name}`;
export const scaleSetId = (t: ArmScope, name: string) =>
  `${provider(t, "Microsoft.Compute")}/virtualMachineScaleSets/${name}`;
