import type { InvocationContext } from "@azure/functions";
import { invocationLogger } from "../log";
import type { PipelineDeps } from "../pipeline/deps";
import type { BackstopSummary } from "../pipeline/sweep";
import type { PublishedIntake } from "./intake";
import type { OwnerIndexCache } from "./ownerIndexCache";

/**
 * The Resource Graph backstop (docs/control-plane.md): Event Grid delivers at least once but not
 * always (a subscription created late, a delivery dead-lettered after its retries), so the sweep
 * reads `maintenanceresources` for the clusters' subscriptions at most every
 * QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS per instance (and no sooner than the quota reset after
 * a 429), and hands what it finds to the same intake. Events already held are matched by one
 * key listing; ended events nobody held are history, and are left alone.
 */
export function createBackstop(
  deps: PipelineDeps,
  owners: OwnerIndexCache,
  intake: PublishedIntake,
) {
  let notBefore = Number.NEGATIVE_INFINITY;
  return async (context?: InvocationContext): Promise<BackstopSummary | null> => {
    const o = deps.options.controlPlaneEvents;
    const intervalMs = o.resourceGraphIntervalMs;
    const now = deps.clock.now();
    if (!o.enabled || intervalMs === 0 || now < notBefore) return null;
    notBefore = now + intervalMs;
    // The operator's list, else the clusters' subscriptions and every one the deployment serves
    // (QUIESCE_SUBSCRIPTIONS: an agentless cluster's, or one whose VMs no relay reported yet).
    const subscriptions =
      o.resourceGraphSubscriptions.length > 0
        ? o.resourceGraphSubscriptions
        : unionIgnoringCase(await owners.subscriptions(), o.subscriptions);
    const none = { subscriptions: subscriptions.length, pages: 0, observations: 0, intake: null };
    if (subscriptions.length === 0) return { ...none, error: null };
    const scan = await deps.controlPlane.scheduledEvents(subscriptions);
    if (!scan) return { ...none, error: "no control plane" };
    if (!scan.ok) {
      if (scan.error.retryAfterMs !== undefined)
        notBefore = Math.max(notBefore, now + scan.error.retryAfterMs);
      const error = `Resource Graph ${scan.error.status || "request"} ${scan.error.code}: ${scan.error.message}`;
      if (context) invocationLogger(context).warn("sweep: backstop failed", { error });
      return { ...none, error };
    }
    const known = await deps.store.eventClusters();
    const summary = await intake(scan.value.observations, {
      knownClusters: known,
      skipUnknownEnded: true,
    });
    if (summary.applied > 0 && context)
      invocationLogger(context).info(
        `sweep: Resource Graph found ${summary.applied} change(s) Event Grid had not delivered`,
      );
    return {
      subscriptions: subscriptions.length,
      pages: scan.value.pages,
      observations: scan.value.observations.length,
      intake: summary,
      error: null,
    };
  };
}

/** Both lists, each subscription once (ids compared without case), the first list's first. */
function unionIgnoringCase(a: readonly string[], b: readonly string[]): string[] {
  const seen = new Set(a.map((x) => x.toLowerCase()));
  return [...a, ...b.filter((x) => !seen.has(x.toLowerCase()))];
}
