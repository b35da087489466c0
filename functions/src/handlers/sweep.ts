import type { InvocationContext, Timer } from "@azure/functions";
import { type ClusterState, tick } from "@quiesce/core";
import { policyFor } from "@quiesce/protocol/policy";
import { ConcurrencyConflict, counted, type OpCounts } from "../store";
import type { HandlerDeps } from "./deps";
import { createWatch, type WatchSummary } from "./watch";

const DAY_MS = 86_400_000;
const HISTORY_PURGE_INTERVAL_MS = 3_600_000;

export interface SweepSummary {
  clusters: number;
  changed: number;
  /** Clusters another instance wrote meanwhile: left for the next round. */
  skipped: string[];
  forgotten: number;
  historyPurged: number;
  /** Notifications queued and delivery outcomes of this round (and coverage alerts raised). */
  notifications: WatchSummary;
  ops: OpCounts;
}

/**
 * The periodic sweep: tick every cluster with an event not ended (lease expiry, liveness,
 * NotBefore, recovery timeouts) or one ended longer ago than the retention (forgotten with its
 * readiness rows), and, at most hourly per instance, delete history past its retention.
 */
export function createSweep(deps: HandlerDeps) {
  let lastHistoryPurge = Number.NEGATIVE_INFINITY;
  const watch = createWatch(deps);
  return async (context?: InvocationContext): Promise<SweepSummary> => {
    const { value, ops } = await counted(async () => {
      const now = deps.clock.now();
      const eventRetentionMs = deps.settings.QUIESCE_EVENT_RETENTION_DAYS * DAY_MS;
      const clusters = await deps.store.clustersToSweep(now - eventRetentionMs);
      let changed = 0;
      let forgotten = 0;
      const skipped: string[] = [];
      const ticked = new Map<string, ClusterState>();
      for (const cluster of clusters) {
        const loaded = await deps.store.loadCluster(cluster);
        const policy = policyFor(deps.settings.QUIESCE_POLICY, cluster);
        const d = tick(loaded.state, deps.clock.now(), policy, { eventRetentionMs });
        ticked.set(cluster, loaded.state);
        if (d.state === loaded.state && d.forget.length === 0 && d.transitions.length === 0) {
          watch.afterTick(loaded.state, d, policy, false);
          continue;
        }
        try {
          await deps.store.commit(loaded, d);
          changed++;
          forgotten += d.forget.length;
          ticked.set(cluster, d.state);
          watch.afterTick(loaded.state, d, policy, true);
        } catch (e) {
          if (!(e instanceof ConcurrencyConflict)) throw e;
          skipped.push(cluster); // a report wrote meanwhile and re-evaluated; next round catches up
        }
      }
      const notifications = await watch.afterSweep(ticked).catch((e: unknown) => {
        context?.warn(`sweep: notifications and coverage: ${(e as Error).message}`);
        return { queued: 0, delivered: 0, retried: 0, dropped: 0 };
      });
      let historyPurged = 0;
      if (now - lastHistoryPurge >= HISTORY_PURGE_INTERVAL_MS) {
        historyPurged = await deps.store.purgeHistory(
          now - deps.settings.QUIESCE_HISTORY_RETENTION_DAYS * DAY_MS,
        );
        lastHistoryPurge = now;
      }
      return {
        clusters: clusters.length,
        changed,
        skipped,
        forgotten,
        historyPurged,
        notifications,
      };
    });
    const summary = { ...value, ops };
    if (deps.settings.QUIESCE_DEBUG || summary.changed > 0)
      context?.info(
        `sweep: ${summary.clusters} clusters, ${summary.changed} changed, ${summary.skipped.length} skipped, ${summary.forgotten} forgotten, ${summary.historyPurged} history rows purged; table ops ${ops.reads}r/${ops.queries}q/${ops.writes}w`,
      );
    return summary;
  };
}

export function sweepTimerHandler(deps: HandlerDeps) {
  const sweep = createSweep(deps);
  return async (_timer: Timer, context: InvocationContext): Promise<void> => {
    await sweep(context);
  };
}
