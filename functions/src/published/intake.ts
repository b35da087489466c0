import { applyPublished, type ClusterState, type Decision } from "@quiesce/core";
import { eventKey } from "@quiesce/protocol/imds";
import type { ControlPlaneObservation } from "@quiesce/protocol/maintenance";
import { policyFor } from "@quiesce/protocol/policy";
import { countsEveryMember } from "../controlPlane";
import { decisionEffects } from "../effects/derive";
import { runEffects } from "../effects/run";
import type { PipelineDeps } from "../pipeline/deps";
import { gateInputs } from "../pipeline/sweep";
import { commitDecision, counted, withConflictRetry } from "../store";
import type { ClaimIndexCache } from "./claimIndexCache";

/**
 * Events Azure published off the VM (an Event Grid delivery, a Resource Graph page) into the
 * clusters they belong to: each observation goes to the cluster(s) already holding its event,
 * else to those claiming its scope (claims.ts), else to QUIESCE_UNCLAIMED_CLUSTER; there it is
 * applied by the core (core/src/published.ts) under the cluster's ETags, committed, and its
 * effects run like an operator action's. A cluster whose state moved is handed to `followUp`
 * (the coordinator's own drains and approvals, controlPlane/agentlessRun.ts), not awaited here.
 */
export interface IntakeSummary {
  /** Observations that changed a cluster. */
  applied: number;
  /** Duplicates and stale deliveries: nothing to change. */
  unchanged: number;
  /** Observations no cluster claims (kept in the unclaimed cluster unless it is turned off). */
  unclaimed: number;
  /** Resource Graph rows of ended events no cluster knew: history, not news. */
  skipped: number;
  clusters: string[];
}

export interface IntakeOptions {
  /** Where the event is already held, from one listing (the backstop) instead of a query each. */
  knownClusters?: ReadonlyMap<string, readonly string[]>;
  /** Leave an ended event no cluster holds alone (Resource Graph keeps them for days). */
  skipUnknownEnded?: boolean;
}

const ENDED_STATUSES = new Set(["Completed", "Canceled"]);

export function createPublishedIntake(
  deps: PipelineDeps,
  claims: ClaimIndexCache,
  followUp: (cluster: string, eventKeys: readonly string[]) => void,
) {
  return async (
    observations: readonly ControlPlaneObservation[],
    opts: IntakeOptions = {},
  ): Promise<IntakeSummary> => {
    const summary: IntakeSummary = {
      applied: 0,
      unchanged: 0,
      unclaimed: 0,
      skipped: 0,
      clusters: [],
    };
    const touched = new Map<string, Set<string>>();
    for (const obs of observations) {
      const key = eventKey(obs.event.EventId);
      let clusters = opts.knownClusters
        ? [...(opts.knownClusters.get(key) ?? [])]
        : await deps.store.findEventClusters(key);
      const fallback = deps.settings.QUIESCE_UNCLAIMED_CLUSTER;
      if (clusters.length > 1 && clusters.includes(fallback)) {
        // Held as unclaimed until a relay reported it into its own cluster: that one owns it now.
        await deps.store.forgetEvent(fallback, key);
        clusters = clusters.filter((c) => c !== fallback);
      }
      if (clusters.length === 0) {
        if (opts.skipUnknownEnded && ENDED_STATUSES.has(obs.event.EventStatus)) {
          summary.skipped++;
          continue;
        }
        clusters = await claims.claim(obs.scope, obs.event.Resources);
      }
      if (clusters.length === 0) {
        summary.unclaimed++;
        if (fallback === "off") continue;
        clusters = [fallback];
      }
      for (const cluster of clusters) {
        const changed = await applyTo(deps, cluster, obs);
        if (changed) {
          summary.applied++;
          touched.set(cluster, (touched.get(cluster) ?? new Set()).add(key));
        } else summary.unchanged++;
      }
    }
    summary.clusters = [...touched.keys()].sort();
    for (const [cluster, keys] of touched) followUp(cluster, [...keys]);
    return summary;
  };
}

async function applyTo(
  deps: PipelineDeps,
  cluster: string,
  obs: ControlPlaneObservation,
): Promise<boolean> {
  const policy = policyFor(deps.settings.QUIESCE_POLICY, cluster);
  const key = eventKey(obs.event.EventId);
  const { value } = await counted(() =>
    withConflictRetry(async (): Promise<{ before: ClusterState; decision: Decision } | null> => {
      // The event's own rows and every event row (the budget), as a report reads them: not the
      // whole cluster, which at 10,000 VMs is every member row for each delivery. A live-relays
      // gate counts every member, so with one the whole cluster is read, as the sweep does.
      const loaded = countsEveryMember(policy)
        ? await deps.store.loadCluster(cluster, [key])
        : await deps.store.loadEvents(cluster, [key], obs.event.Resources);
      const now = deps.clock.now();
      const inputs = await gateInputs(deps, loaded.state, policy);
      const decision = applyPublished(loaded.state, obs, now, policy, inputs);
      if (decision.state === loaded.state) return null;
      await commitDecision(deps.store, loaded, decision);
      return { before: loaded.state, decision };
    }, deps.retry),
  );
  if (!value) return false;
  runEffects(
    { telemetry: deps.telemetry, notify: (ns, p) => deps.notifier.afterCommit(ns, p) },
    decisionEffects(value.before, value.decision, { kind: "operator" }, deps.clock.now(), policy),
  );
  return true;
}
