import type { FabricState } from "../model/types";
import { stableUuid } from "../topology/stableId";
import type { VmRecord } from "../topology/topology";
import type { KubeNode, KubeWorld } from "./types";

/**
 * Every live VM of a scale set is an AKS-style node: named after the VM's computer name, with
 * `spec.providerID` = `azure://` + the VM's ARM id. That is what cloud-provider-azure sets
 * (kubernetes-sigs/cloud-provider-azure, pkg/provider/azure_vmss.go: a Uniform instance is
 * `azure:///subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Compute/
 * virtualMachineScaleSets/<ss>/virtualMachines/<id>`; azure_vmssflex.go: a Flexible VM is
 * `azure:///…/providers/Microsoft.Compute/virtualMachines/<vm>`, and the node name is the
 * lower-cased computer name). Availability-set and standalone VMs carry no node.
 */

export const providerIdOf = (vm: VmRecord): string => `azure://${vm.resourceId}`;

/** AKS names node pools' scale sets `aks-<pool>-<8 digits>-vmss`. */
const aksPool = (scaleSet: string | undefined) =>
  scaleSet ? /^aks-([a-z0-9]+)-\d+-vmss$/i.exec(scaleSet)?.[1] : undefined;

export function newNode(vm: VmRecord, createdMs: number, resourceVersion: number): KubeNode {
  const pool = aksPool(vm.vmScaleSetName);
  return {
    name: vm.computerName,
    vm: vm.name,
    providerID: providerIdOf(vm),
    uid: stableUuid("node", vm.resourceId),
    createdMs,
    unschedulable: false,
    labels: {
      "kubernetes.io/hostname": vm.computerName,
      "kubernetes.io/os": "linux",
      "kubernetes.io/arch": "amd64",
      "node.kubernetes.io/instance-type": "Standard_D2s_v5",
      "topology.kubernetes.io/region": vm.location,
      // AKS labels a zoneless node with its fault domain as the zone.
      "topology.kubernetes.io/zone": vm.zone ? `${vm.location}-${vm.zone}` : vm.platformFaultDomain,
      ...(pool ? { agentpool: pool, "kubernetes.azure.com/agentpool": pool } : {}),
    },
    annotations: { "node.alpha.kubernetes.io/ttl": "0" },
    resourceVersion,
  };
}

const carriesNode = (vm: VmRecord) => vm.vmScaleSetName !== undefined && !vm.deleted;

/**
 * The nodes follow the fabric: a VM added to a scale set registers, a VM Azure deleted (a
 * completed Preempt or Terminate) disappears, and so do the pods bound to it.
 */
export function syncNodes(world: KubeWorld, fabric: FabricState, nowMs: number): KubeWorld {
  const wanted = Object.values(fabric.vms).filter(carriesNode);
  const names = new Set(wanted.map((v) => v.computerName));
  const stale = Object.keys(world.nodes).filter((n) => !names.has(n));
  const fresh = wanted.filter((v) => !world.nodes[v.computerName]);
  if (stale.length === 0 && fresh.length === 0) return world;
  let rv = world.resourceVersion;
  const nodes: Record<string, KubeNode> = {};
  for (const [name, node] of Object.entries(world.nodes)) if (names.has(name)) nodes[name] = node;
  for (const vm of fresh) nodes[vm.computerName] = newNode(vm, nowMs, ++rv);
  const gone = new Set(stale);
  return {
    ...world,
    nodes,
    resourceVersion: rv,
    // Pods on a vanished node are gone at once (no kubelet left to wait for a grace period).
    pods: world.pods.map((p) =>
      gone.has(p.nodeName) && (!p.deletion || p.deletion.goneMs > nowMs)
        ? { ...p, deletion: { deadlineMs: nowMs, graceSeconds: 0, goneMs: nowMs } }
        : p,
    ),
  };
}

export const findNodeOfVm = (world: KubeWorld, vm: string): KubeNode | undefined =>
  Object.values(world.nodes).find((n) => n.vm.toLowerCase() === vm.toLowerCase());
