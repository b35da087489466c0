import type { NodeInfo } from "./objects";

/**
 * Which node is this VM. cloud-provider-azure sets a node's `spec.providerID` to `azure://` and
 * the VM's ARM id (kubernetes-sigs/cloud-provider-azure, pkg/provider/azure_vmss.go for Uniform
 * instances, `…/virtualMachineScaleSets/<ss>/virtualMachines/<instanceId>`; azure_vmssflex.go
 * for Flexible VMs, `…/virtualMachines/<name>`), and IMDS gives the same id as
 * `compute.resourceId`. Compared case-insensitively: ARM ids are, and AKS's node resource group
 * appears in either case (azure_wrap.go, ConvertResourceGroupNameToLower). The node's name (the
 * VM's computer name, `…-vmss00000a`) is never guessed from the hostname or from `Resources`
 * (`…-vmss_10`).
 */

const PREFIX = /^azure:\/\//i;

export function providerIdMatches(providerID: string | undefined, resourceId: string): boolean {
  if (!providerID || !PREFIX.test(providerID)) return false;
  const id = providerID.replace(PREFIX, "").replace(/\/+$/, "");
  return id.toLowerCase() === resourceId.replace(/\/+$/, "").toLowerCase();
}

export function nodeOfVm(nodes: readonly NodeInfo[], resourceId: string): NodeInfo | undefined {
  return nodes.find((n) => providerIdMatches(n.providerID, resourceId));
}
