import {
  applyOperatorAction,
  type ClusterState,
  type Decision,
  type OperatorAction,
} from "@quiesce/core";
import { policyFor } from "@quiesce/protocol/policy";
import { decisionEffects } from "../effects/derive";
import { runEffects } from "../effects/run";
import { commitDecision, counted, withConflictRetry } from "../store";
import type { PipelineDeps } from "./deps";

/**
 * An operator's hold, release or force-approve of one event: load the cluster → decide → commit
 * (with an audit row naming who and why, besides the transition the core records), retried from
 * a fresh read on conflicts; then the decision's effects, derived as for a report. Throws the
 * core's OperatorActionError for an event unknown or ended.
 */
export async function runOperatorAction(
  deps: PipelineDeps,
  cluster: string,
  key: string,
  action: OperatorAction,
): Promise<void> {
  const policy = policyFor(deps.settings.QUIESCE_POLICY, cluster);
  const { value } = await counted(() =>
    withConflictRetry(async (): Promise<{ before: ClusterState; decision: Decision }> => {
      const loaded = await deps.store.loadCluster(cluster, [key]);
      const now = deps.clock.now();
      const decision = applyOperatorAction(loaded.state, key, action, now, policy);
      await commitDecision(deps.store, loaded, decision, {
        audit: {
          eventKey: key,
          at: now,
          by: action.by,
          action: action.kind,
          reason: action.reason,
          ...(action.kind === "release" ? {} : { ttlSeconds: action.ttlSeconds }),
        },
      });
      return { before: loaded.state, decision };
    }, deps.retry),
  );
  runEffects(
    { telemetry: deps.telemetry, notify: (ns, p) => deps.notifier.afterCommit(ns, p) },
    decisionEffects(value.before, value.decision, { kind: "operator" }, deps.clock.now(), policy),
  );
}
