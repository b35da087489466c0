import type { Result } from "@quiesce/protocol";
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
 *
 * Two nodes can carry one VM's id (differing in case, or a stale Node object left when the VM
 * registered again): draining either would report the VM drained while the other may still run
 * pods, so more than one match is an error naming them all, and nothing is touched.
 */

const PREFIX = /^azure:\/\//i;

export function providerIdMatches(providerID: string | undefined, resourceId: string): boolean {
  if (!providerID || !PREFIX.test(providerID)) return false;
  const id = providerID.replace(PREFIX, "").replace(/\/+$/, "");
  return id.toLowerCase() === resourceId.replace(/\/+$/, "").toLowerCase();
}

/** The VM's one node, none (undefined), or an error naming every node that matched. */
export function nodeOfVm(
  nodes: readonly NodeInfo[],
  resourceId: string,
): Result<NodeInfo | undefined> {
  const matches = nodes.filter((n) => providerIdMatches(n.providerID, resourceId));
  if (matches.length <= 1) return { ok: true, value: matches[0] };
  const names = matches.map((n) => n.name).join(", ");
  return {
    ok: false,
    error: `${matches.length} Kubernetes nodes have this VM's spec.providerID (${names}): refusing to pick one; delete the stale Node object`,
  };
}
