import type { FabricState } from "../model/types";
import type { AdminState, LoadBalancerSpec } from "../topology/armTopology";
import { stableUuid, type Topology, type VmRecord } from "../topology/topology";
import { initialChangeSafety } from "./changeSafety";
import { MaintenanceBehaviour } from "./commands";
import { resourceGroupId, subscriptionId } from "./ids";
import { initialQuota } from "./resourceGraphQuota";
import { type ArmWorld, type PoolState, poolKey, type RoleAssignment } from "./types";

/** A fresh ARM world for one fabric generation: pure, from the topology. */

/**
 * What the system-assigned identity may do out of the box, so a coordinator works against the
 * simulator without any set-up: everything in the simulated resource group (Contributor), and
 * reading alerts at subscription scope, since Alerts Management lists alerts per subscription
 * (Azure's Monitoring Reader allows every read there; the simulator grants only the alerts, so
 * revoking the resource-group assignment really takes the rest away).
 */
export function defaultRoleAssignments(topology: Topology, principalId: string): RoleAssignment[] {
  const rg = resourceGroupId(topology);
  const sub = subscriptionId(topology);
  return [
    {
      id: stableUuid("role", principalId, rg, "Contributor"),
      principalId,
      scope: rg,
      role: "Contributor",
      actions: ["*"],
    },
    {
      id: stableUuid("role", principalId, sub, "Monitoring Reader"),
      principalId,
      scope: sub,
      role: "Monitoring Reader",
      actions: ["Microsoft.AlertsManagement/*/read"],
    },
  ];
}

export function loadBalancers(topology: Topology): readonly LoadBalancerSpec[] {
  return topology.loadBalancers ?? [];
}

/** The VMs behind a pool, in topology order; deleted (evicted) VMs are gone from Azure too. */
export function poolVms(
  state: FabricState,
  pool: LoadBalancerSpec["pools"][number],
): readonly VmRecord[] {
  const out: VmRecord[] = [];
  for (const g of pool.groups) {
    for (const name of state.groups[g]?.vms ?? []) {
      const vm = state.vms[name];
      if (vm && !vm.deleted) out.push(vm);
    }
  }
  return out;
}

export function createWorld(
  state: FabricState,
  generation: number,
  systemPrincipalId: string,
  nowMs: number,
): ArmWorld {
  const pools: Record<string, PoolState> = {};
  const traffic: Record<string, ArmWorld["traffic"][string]> = {};
  for (const lb of loadBalancers(state.topology)) {
    for (const pool of lb.pools) {
      const adminStates: Record<string, AdminState> = {};
      for (const g of pool.groups) {
        for (const vm of state.groups[g]?.vms ?? []) adminStates[vm] = pool.adminState;
      }
      pools[poolKey(lb.name, pool.name)] = {
        loadBalancer: lb.name,
        pool: pool.name,
        version: 1,
        adminStates,
      };
    }
    traffic[lb.name.toLowerCase()] = { atMs: nowMs, cursor: 0, total: 0, unrouted: 0, perVm: {} };
  }
  return {
    generation,
    roleAssignments: defaultRoleAssignments(state.topology, systemPrincipalId),
    faults: [],
    nextFaultId: 1,
    pools,
    traffic,
    alerts: [],
    resourceGraph: initialQuota(),
    maintenance: MaintenanceBehaviour.parse({}),
    changeSafety: initialChangeSafety(),
  };
}
