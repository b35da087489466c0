import type { FabricState } from "../model/types";
import type { AdminState } from "../topology/armTopology";
import type { ArmWorld, BackendCounts, LoadBalancerTraffic } from "./types";
import { poolKey } from "./types";
import { loadBalancers, poolVms } from "./world";

/**
 * Simulated client traffic through each load balancer: `requestsPerSecond` requests per simulated
 * second, round-robin over the backends the load balancer would use. A backend is used unless its
 * admin state is Down; with None the health probe also takes it out once its VM has been down
 * (in a Started event) for `probeSeconds`, and with Up it is used even when down (Azure: Up
 * "overrides the health probe"). Requests that reach a down VM count as dropped.
 *
 * Pure, and computed from the events' own start and removal instants, so the counts do not depend
 * on how often the shell asks: stepping a manual clock by 60 s or ticking 1,200 times gives the
 * same numbers (admin state changes apply from the moment they are made).
 */

/** At most this many steps per catch-up, so advancing a month stays cheap (steps grow instead). */
const MAX_STEPS = 3600;

type Intervals = ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;

/** When each VM was down: from an event's start to its removal (or still). */
function downIntervals(state: FabricState): Intervals {
  const out = new Map<string, Array<readonly [number, number]>>();
  for (const e of [...state.active, ...state.past]) {
    if (!e.startedAt) continue;
    const span = [e.startedAt.simMs, e.removedAt?.simMs ?? Number.POSITIVE_INFINITY] as const;
    for (const vm of e.resources) out.set(vm, [...(out.get(vm) ?? []), span]);
  }
  return out;
}

function downSince(intervals: Intervals, vm: string, atMs: number): number | undefined {
  return intervals.get(vm)?.find(([from, to]) => from <= atMs && atMs < to)?.[0];
}

const add = (c: BackendCounts | undefined, routed: number, dropped: number): BackendCounts => ({
  routed: (c?.routed ?? 0) + routed,
  dropped: (c?.dropped ?? 0) + dropped,
});

export function advanceTraffic(world: ArmWorld, state: FabricState, nowMs: number): ArmWorld {
  if (loadBalancers(state.topology).length === 0) return world;
  const intervals = downIntervals(state);
  const traffic: Record<string, LoadBalancerTraffic> = { ...world.traffic };
  for (const lb of loadBalancers(state.topology)) {
    const key = lb.name.toLowerCase();
    const t = traffic[key];
    if (!t) continue;
    const seconds = Math.floor((nowMs - t.atMs) / 1000);
    if (seconds <= 0) continue;

    // One address per VM (the first pool naming it decides its admin state).
    const backends: Array<{ vm: string; admin: AdminState }> = [];
    for (const pool of lb.pools) {
      const ps = world.pools[poolKey(lb.name, pool.name)];
      for (const vm of poolVms(state, pool)) {
        if (backends.some((b) => b.vm === vm.name)) continue;
        backends.push({ vm: vm.name, admin: ps?.adminStates[vm.name] ?? pool.adminState });
      }
    }

    let { cursor, total, unrouted } = t;
    const perVm: Record<string, BackendCounts> = { ...t.perVm };
    const step = Math.max(1, Math.ceil(seconds / MAX_STEPS));
    for (let s = 0; s < seconds; s += step) {
      const atMs = t.atMs + s * 1000;
      const requests = lb.requestsPerSecond * Math.min(step, seconds - s);
      total += requests;
      const used = backends.filter((b) => {
        if (b.admin === "Down") return false;
        if (b.admin === "Up") return true;
        const since = downSince(intervals, b.vm, atMs);
        return since === undefined || atMs - since < lb.probeSeconds * 1000;
      });
      if (used.length === 0) {
        unrouted += requests;
        continue;
      }
      // Round-robin without a loop per request: each gets its share, the next `extra` one more.
      const share = Math.floor(requests / used.length);
      const extra = requests % used.length;
      const start = cursor % used.length;
      for (const [i, b] of used.entries()) {
        const n = share + ((i - start + used.length) % used.length < extra ? 1 : 0);
        if (n === 0) continue;
        const down = downSince(intervals, b.vm, atMs) !== undefined;
        perVm[b.vm] = add(perVm[b.vm], n, down ? n : 0);
      }
      cursor = (cursor + requests) % 1_000_000_007;
    }
    traffic[key] = { atMs: t.atMs + seconds * 1000, cursor, total, unrouted, perVm };
  }
  return { ...world, traffic };
}
