import { type ControlResult, parseCommand, refused } from "../model/controlResult";
import type { AdminState } from "../topology/armTopology";
import { SetAdminState } from "./commands";
import type { ArmEngine } from "./engine";
import type { ArmAnswer } from "./errors";
import { ipConfigId, loadBalancerId, poolId, sameName } from "./ids";
import { addressName, adminStateOf, type PoolContext, poolEtag, putPool } from "./pools";
import { poolKey } from "./types";
import { loadBalancers, poolVms } from "./world";

/** The load balancers as tests and the demo look at them: admin states and simulated traffic. */

export interface BackendView {
  readonly vm: string;
  readonly address: string;
  readonly ipConfigurationId: string;
  readonly adminState: AdminState;
  /** Simulated requests this load balancer sent to the VM, and how many hit it while down. */
  readonly routed: number;
  readonly dropped: number;
}

export interface LoadBalancerView {
  readonly name: string;
  readonly id: string;
  readonly requestsPerSecond: number;
  readonly probeSeconds: number;
  /** Simulated requests so far, and those no backend could take. */
  readonly total: number;
  readonly unrouted: number;
  readonly pools: ReadonlyArray<{
    readonly name: string;
    readonly id: string;
    readonly etag: string;
    readonly backends: readonly BackendView[];
  }>;
}

/** The pool named by an ARM path (names compared case-insensitively), with what renders it. */
export function poolContext(arm: ArmEngine, lbName: string, poolName: string) {
  const state = arm.fabric.state();
  const lb = loadBalancers(state.topology).find((l) => sameName(l.name, lbName));
  if (!lb) return { found: "none" as const };
  const pool = lb.pools.find((p) => sameName(p.name, poolName));
  const poolState = pool ? arm.world().pools[poolKey(lb.name, pool.name)] : undefined;
  if (!pool || !poolState) return { found: "loadBalancer" as const, lb };
  const context: PoolContext = {
    scope: state.topology,
    state,
    lb,
    pool,
    poolState,
    generation: arm.world().generation,
  };
  return { found: "pool" as const, context };
}

export function loadBalancerViews(arm: ArmEngine): LoadBalancerView[] {
  const w = arm.syncTraffic();
  const state = arm.fabric.state();
  return loadBalancers(state.topology).map((lb) => {
    const t = w.traffic[lb.name.toLowerCase()];
    return {
      name: lb.name,
      id: loadBalancerId(state.topology, lb.name),
      requestsPerSecond: lb.requestsPerSecond,
      probeSeconds: lb.probeSeconds,
      total: t?.total ?? 0,
      unrouted: t?.unrouted ?? 0,
      pools: lb.pools.map((pool) => {
        const c = poolContext(arm, lb.name, pool.name);
        const ctx = c.found === "pool" ? c.context : undefined;
        return {
          name: pool.name,
          id: poolId(state.topology, lb.name, pool.name),
          etag: ctx ? poolEtag(ctx) : "",
          backends: poolVms(state, pool).map((vm) => ({
            vm: vm.name,
            address: addressName(vm),
            ipConfigurationId: ipConfigId(state.topology, vm),
            adminState: ctx ? adminStateOf(ctx, vm.name) : pool.adminState,
            routed: t?.perVm[vm.name]?.routed ?? 0,
            dropped: t?.perVm[vm.name]?.dropped ?? 0,
          })),
        };
      }),
    };
  });
}

/** An operator's admin-state change (as if made in the portal), for tests and the demo. */
export function setAdminState(arm: ArmEngine, input: unknown): ControlResult<LoadBalancerView> {
  const p = parseCommand(SetAdminState, input);
  if (!p.ok) return p;
  const c = poolContext(arm, p.value.loadBalancer, p.value.pool);
  if (c.found !== "pool") {
    return refused(404, `no pool ${p.value.pool} in load balancer ${p.value.loadBalancer}`);
  }
  const vm = poolVms(c.context.state, c.context.pool).find((v) => sameName(v.name, p.value.vm));
  if (!vm) return refused(404, `${p.value.vm} is not a backend of ${p.value.pool}`);
  arm.syncTraffic();
  const { poolState } = c.context;
  applyPoolState(arm, {
    ...poolState,
    version: poolState.version + 1,
    adminStates: { ...poolState.adminStates, [vm.name]: p.value.adminState },
  });
  const view = loadBalancerViews(arm).find((l) => sameName(l.name, p.value.loadBalancer));
  return view
    ? { ok: true, value: view }
    : refused(404, `no load balancer ${p.value.loadBalancer}`);
}

function applyPoolState(arm: ArmEngine, poolState: PoolContext["poolState"]): void {
  arm.update((w) => ({
    ...w,
    pools: { ...w.pools, [poolKey(poolState.loadBalancer, poolState.pool)]: poolState },
  }));
}

/** ARM's PUT of a pool: traffic up to now runs under the old admin states, then the new apply. */
export function putPoolFromArm(
  arm: ArmEngine,
  context: PoolContext,
  body: unknown,
  ifMatch: string | undefined,
): { ok: true; context: PoolContext } | { ok: false; answer: ArmAnswer } {
  const r = putPool(context, body, ifMatch);
  if (!r.ok) return r;
  arm.syncTraffic();
  applyPoolState(arm, r.poolState);
  return { ok: true, context: { ...context, poolState: r.poolState } };
}
