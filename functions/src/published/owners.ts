import { memberKey } from "@quiesce/core";
import type { VmIdentity } from "@quiesce/protocol/imds";
import type { Policies } from "@quiesce/protocol/policy";
import type { EventScope } from "@quiesce/protocol/published";

/**
 * Which cluster an event published off the VM belongs to (pure). Azure scopes it to an
 * availability set, a scale set (not the instance) or a VM, by ARM id in lower case; a cluster
 * owns a scope by naming it in its policy's `azureResources`, or through its relays' VMs:
 * a VM's own resource id, its scale set, or (availability sets, which IMDS does not name) a VM
 * of the event's `Resources` in the same subscription and resource group (a VM is in its
 * availability set's resource group). An event a cluster already holds stays with it (the
 * intake looks that up first).
 */
export interface OwnerIndex {
  /** azureResources: lower-case ARM id → cluster. */
  declared: ReadonlyMap<string, string>;
  /** A member's VM resource id (lower case) → clusters. */
  vms: ReadonlyMap<string, readonly string[]>;
  /** `sub/rg/scaleSet` (lower case) → clusters with a member in it. */
  scaleSets: ReadonlyMap<string, readonly string[]>;
  /** `sub/rg/vmName` (lower case) → clusters. */
  names: ReadonlyMap<string, readonly string[]>;
  /** Subscriptions of every owned resource (the backstop's default query scope). */
  subscriptions: readonly string[];
}

const PREFIX = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\//i;

function add(m: Map<string, string[]>, k: string, cluster: string) {
  const list = m.get(k) ?? [];
  if (!list.includes(cluster)) list.push(cluster);
  m.set(k, list);
}

export function buildOwnerIndex(
  policies: Policies,
  members: ReadonlyMap<string, readonly { vm: VmIdentity }[]>,
): OwnerIndex {
  const declared = new Map<string, string>();
  for (const [cluster, p] of policies.clusters)
    for (const id of p.azureResources) declared.set(id.toLowerCase(), cluster);
  const vms = new Map<string, string[]>();
  const scaleSets = new Map<string, string[]>();
  const names = new Map<string, string[]>();
  const subscriptions = new Set<string>();
  for (const id of declared.keys()) {
    const m = PREFIX.exec(id);
    if (m?.[1]) subscriptions.add(m[1]);
  }
  for (const [cluster, list] of members)
    for (const { vm } of list) {
      add(vms, vm.resourceId.toLowerCase(), cluster);
      const m = PREFIX.exec(vm.resourceId);
      if (!m) continue;
      const base = `${m[1]}/${m[2]}`.toLowerCase();
      subscriptions.add((m[1] as string).toLowerCase());
      if (vm.vmScaleSetName) add(scaleSets, `${base}/${vm.vmScaleSetName.toLowerCase()}`, cluster);
      add(names, `${base}/${memberKey(vm.name)}`, cluster);
    }
  return { declared, vms, scaleSets, names, subscriptions: [...subscriptions].sort() };
}

/** The clusters owning the scope, sorted; empty when none does. */
export function owningClusters(
  index: OwnerIndex,
  scope: EventScope,
  resources: readonly string[],
): string[] {
  const declared = index.declared.get(scope.id);
  if (declared) return [declared];
  const base = `${scope.subscriptionId}/${scope.resourceGroup}`.toLowerCase();
  const found = new Set<string>();
  if (scope.kind === "virtualMachines") for (const c of index.vms.get(scope.id) ?? []) found.add(c);
  if (scope.kind === "virtualMachineScaleSets")
    for (const c of index.scaleSets.get(`${base}/${scope.name.toLowerCase()}`) ?? []) found.add(c);
  if (scope.kind === "availabilitySets" || scope.kind === "virtualMachineScaleSets")
    for (const vm of resources)
      for (const c of index.names.get(`${base}/${memberKey(vm)}`) ?? []) found.add(c);
  return [...found].sort();
}
