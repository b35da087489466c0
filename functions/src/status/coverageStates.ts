import { type ClusterState, emptyClusterState, memberKey } from "@quiesce/core";
import { dict } from "@quiesce/protocol";
import { StatusQueries } from "../store";
import type { StatusDeps } from "./deps";

/**
 * Every cluster's state as coverage needs it: all its members, and its events and readiness only
 * where an event is active (a cluster with none has no unregistered VM to find). One members
 * query for the whole table, plus a cluster load per cluster with an active event that the
 * caller has not loaded already.
 */
export async function coverageStates(
  deps: StatusDeps,
  now: number,
  loaded: ReadonlyMap<string, ClusterState> = new Map(),
): Promise<ClusterState[]> {
  const retentionMs = deps.options.eventRetentionMs;
  const [members, active] = await Promise.all([
    new StatusQueries(deps.store.tables, deps.store.memberRows).members(),
    deps.store.clustersToSweep(now - retentionMs),
  ]);
  const withEvents = new Set(active);
  const out: ClusterState[] = [];
  for (const cluster of [...new Set([...members.keys(), ...active])].sort()) {
    const known = loaded.get(cluster);
    if (known) out.push(known);
    else if (withEvents.has(cluster)) out.push((await deps.store.loadCluster(cluster)).state);
    else
      out.push({
        ...emptyClusterState(cluster),
        members: dict((members.get(cluster) ?? []).map((m) => [memberKey(m.vmName), m] as const)),
      });
  }
  return out;
}
