import type { ClusterState, Transition } from "@quiesce/core";
import { commitDecision, withConflictRetry } from "../store";
import type { ControlPlaneDeps } from "./deps";

/**
 * One recorded step of a control-plane action: load the cluster, apply a pure change of the core
 * (claim, record), commit under ETags, from a fresh read on a conflict. The change returns null
 * when the step is no longer due (another instance took it, the event moved on): nothing is
 * written and the caller stops there. This is what makes each ARM call happen once per claim and
 * its outcome survive the instance that made it.
 */
export async function mutate(
  deps: ControlPlaneDeps,
  cluster: string,
  change: (
    state: ClusterState,
    now: number,
  ) => { state: ClusterState; transitions: Transition[] } | null,
): Promise<ClusterState | null> {
  return withConflictRetry(async () => {
    const loaded = await deps.store.loadCluster(cluster);
    const now = deps.clock.now();
    const changed = change(loaded.state, now);
    if (!changed) return null;
    await commitDecision(deps.store, loaded, {
      state: changed.state,
      directives: [],
      transitions: changed.transitions,
      applied: true,
      nextReportInSeconds: 0,
      forget: [],
    });
    return changed.state;
  }, deps.retry);
}
