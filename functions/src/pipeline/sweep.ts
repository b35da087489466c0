import type { InvocationContext } from "@azure/functions";
import type { ClusterState } from "@quiesce/core";
import { type Logger, silentLogger } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { ControlPlaneSummary } from "../controlPlane";
import { invocationLogger } from "../log";
import { type RoundOutcome, runRound } from "../rounds/runner";
import { ConcurrencyConflict, counted, migrateMembers, type OpCounts } from "../store";
import type { PipelineDeps } from "./deps";
import { createSweepEffects, type SweepNotifications } from "./sweepEffects";

/** What the Resource Graph backstop (published/backstop.ts) did in a sweep round. */
export interface BackstopSummary {
  subscriptions: number;
  pages: number;
  observations: number;
  /** What the intake made of them (published/intake.ts). */
  intake: {
    applied: number;
    unchanged: number;
    unclaimed: number;
    skipped: number;
    clusters: string[];
  } | null;
  /** What Resource Graph answered when the read failed. */
  error: string | null;
}

const HISTORY_PURGE_INTERVAL_MS = 3_600_000;
/** Member rows of earlier releases are moved every minute until none is left, then looked for every 10. */
const MIGRATION_INTERVAL_MS = 60_000;
const MIGRATED_INTERVAL_MS = 600_000;

export interface SweepSummary {
  clusters: number;
  changed: number;
  /** Clusters another instance wrote meanwhile: left for the next round. */
  skipped: string[];
  forgotten: number;
  historyPurged: number;
  /** Member rows of an earlier release moved into their buckets this round (memberMigration.ts). */
  membersMoved: number;
  /** Event rows of an earlier release given their index row this round (store/eventIndex.ts). */
  eventsIndexed: number;
  /** Notifications queued and delivery outcomes of this round (and coverage alerts raised). */
  notifications: SweepNotifications;
  /** What the control plane did through ARM this round (docs/control-plane.md). */
  controlPlane: ControlPlaneSummary;
  /** The Resource Graph backstop, when it ran this round (published/backstop.ts). */
  backstop: BackstopSummary | null;
  ops: OpCounts;
}

/**
 * The periodic sweep: for every cluster with an event not ended (lease expiry, liveness,
 * NotBefore, recovery timeouts) or one ended longer ago than the retention (forgotten with its
 * readiness rows): load the cluster → tick → commit (when anything changed) → effects; then the
 * effects of the whole round (sweepEffects.ts), and, at most hourly per instance, delete history
 * past its retention.
 */
export function createSweep(
  deps: PipelineDeps,
  backstop: (context?: InvocationContext) => Promise<BackstopSummary | null> = async () => null,
) {
  let lastHistoryPurge = Number.NEGATIVE_INFINITY;
  let lastMigration = Number.NEGATIVE_INFINITY;
  let migrated = false;
  let indexed = false;
  const effects = createSweepEffects(deps);
  return async (context?: InvocationContext): Promise<SweepSummary> => {
    // Outside an invocation (tests, benchmarks) the sweep's summary is its whole report.
    const log = context ? invocationLogger(context, { round: "sweep" }) : silentLogger;
    // Where Azure offers approval through ARM: at the first round after start-up, then every few
    // hours (controlPlane/regionWatch.ts); outside the round's count of table operations (it is
    // not the sweep's cost), and a failure is retried at the next interval.
    await deps.controlPlane.probeRegions().catch((e: unknown) => {
      log.warn("sweep: the control-plane region probe failed", { error: e });
    });
    const { value, ops } = await counted(async () => {
      // Events Event Grid did not deliver first, so this round ticks the clusters they land in.
      const found = await backstop(context).catch((e: unknown) => {
        log.warn("sweep: the Resource Graph backstop failed", { error: e });
        return null;
      });
      const now = deps.clock.now();
      const { eventRetentionMs } = deps.options;
      const clusters = await deps.store.clustersToSweep(now - eventRetentionMs);
      let changed = 0;
      let forgotten = 0;
      const controlPlane = { acknowledged: 0, failed: 0, takenDown: 0, restored: 0 };
      const skipped: string[] = [];
      const ticked = new Map<string, ClusterState>();
      for (const cluster of clusters) {
        const policy = deps.policies.for(cluster);
        let round: RoundOutcome;
        try {
          round = await runRound(
            deps,
            cluster,
            { kind: "tick", eventRetentionMs, inputs: {} },
            {
              policy,
              evaluationInputs: (state) => deps.controlPlane.waitingGateInputs(state, policy),
              retryConflicts: false,
              effects: "return",
            },
          );
        } catch (e) {
          if (!(e instanceof ConcurrencyConflict)) throw e;
          skipped.push(cluster); // a report wrote meanwhile and re-evaluated; next round catches up
          continue;
        }
        ticked.set(cluster, round.decision.state);
        if (round.committed) {
          changed++;
          forgotten += round.decision.forget.length;
        }
        if (round.effects) effects.afterTick(round.effects);
        await runControlPlane(deps, round.decision.state, policy, controlPlane, log);
      }
      await deps.maintenanceSignal?.(ticked, log, skipped).catch((e: unknown) => {
        log.warn("sweep: the maintenance-active signal failed", { error: e });
      });
      const notifications = await effects.afterSweep(ticked).catch((e: unknown) => {
        log.warn("sweep: notifications and coverage failed", { error: e });
        return { queued: 0, delivered: 0, retried: 0, dropped: 0 };
      });
      let historyPurged = 0;
      if (now - lastHistoryPurge >= HISTORY_PURGE_INTERVAL_MS) {
        historyPurged = await deps.store.purgeHistory(now - deps.options.historyRetentionMs);
        lastHistoryPurge = now;
      }
      let membersMoved = 0;
      if (now - lastMigration >= (migrated ? MIGRATED_INTERVAL_MS : MIGRATION_INTERVAL_MS)) {
        lastMigration = now;
        const pass = await migrateMembers(deps.store.memberRows);
        membersMoved = pass.moved;
        migrated = pass.complete;
      }
      let eventsIndexed = 0;
      if (!indexed) {
        // Once per instance after the index's one-time backfill: a point read of its marker.
        const pass = await deps.store.backfillEventIndex();
        eventsIndexed = pass.indexed;
        indexed = pass.complete;
      }
      return {
        clusters: clusters.length,
        membersMoved,
        eventsIndexed,
        changed,
        skipped,
        forgotten,
        historyPurged,
        notifications,
        controlPlane,
        backstop: found,
      };
    });
    const summary = { ...value, ops };
    if (deps.options.debug || summary.changed > 0)
      log.info(
        `sweep: ${summary.clusters} clusters, ${summary.changed} changed, ${summary.skipped.length} skipped, ${summary.forgotten} forgotten, ${summary.historyPurged} history rows purged; table ops ${ops.reads}r/${ops.queries}q/${ops.writes}w`,
      );
    return summary;
  };
}

/**
 * The ARM calls the tick made due, after its commit: a failure is recorded on the event by the
 * control plane itself; one it could not even record is logged and left to the next sweep.
 */
async function runControlPlane(
  deps: PipelineDeps,
  state: ClusterState,
  policy: Policy,
  into: ControlPlaneSummary,
  log: Logger,
): Promise<void> {
  try {
    const r = await deps.controlPlane.runDue(state, policy);
    into.acknowledged += r.acknowledged;
    into.failed += r.failed;
    into.takenDown += r.takenDown;
    into.restored += r.restored;
  } catch (e) {
    log.child({ cluster: state.cluster }).warn("sweep: control plane failed", { error: e });
  }
}
