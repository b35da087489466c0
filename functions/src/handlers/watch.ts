import { type ClusterState, coverage, type Decision, explain, isEnded } from "@quiesce/core";
import { type Policy, policyFor } from "@quiesce/protocol/policy";
import {
  coverageNotifications,
  eventNotifications,
  fresh,
  type Notification,
} from "../notify/core";
import type { DeliverySummary } from "../notify/notifier";
import { decisionFacts } from "../telemetry/facts";
import { coverageStates } from "./coverageStates";
import type { HandlerDeps } from "./deps";

/** Coverage (every member of every cluster) is recomputed at most this often per instance. */
const COVERAGE_INTERVAL_MS = 60_000;
const OUTBOX_PURGE_INTERVAL_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What the sweep's notification pass did: queued, then as notifier.deliverDue counts. */
export interface WatchSummary extends DeliverySummary {
  queued: number;
}

/**
 * The sweep's operability half: metrics of what each tick decided, every notification still due
 * (level-triggered, so whatever the report path missed, e.g. a crash between commit and enqueue,
 * or `blocked`, which only time makes true), coverage alerts and gauges, then delivery of the
 * outbox. Failures here are logged and never fail the sweep's decisions.
 */
export function createWatch(deps: HandlerDeps) {
  let lastCoverage = Number.NEGATIVE_INFINITY;
  let lastPurge = Number.NEGATIVE_INFINITY;
  const due: Array<{ ns: Notification[]; policy: Policy }> = [];

  return {
    /** After a cluster's tick; `committed` false when nothing changed or another instance won. */
    afterTick(before: ClusterState, d: Decision, policy: Policy, committed: boolean): void {
      const now = deps.clock.now();
      const state = committed ? d.state : before;
      if (committed) deps.telemetry.recordFacts(state.cluster, decisionFacts(before, d));
      const ns: Notification[] = [];
      const blockers: Record<string, number> = {};
      for (const e of Object.values(state.events)) {
        ns.push(...eventNotifications(state, e, now, policy, { withBlocked: true }));
        if (isEnded(e) || e.approvedAt !== null) continue;
        for (const b of explain(state, e.key, now, policy)?.blockers ?? [])
          blockers[b.reason] = (blockers[b.reason] ?? 0) + 1;
      }
      deps.telemetry.setBlockers(state.cluster, blockers);
      due.push({ ns: fresh(ns, now), policy });
    },

    /** After every cluster was ticked: coverage, queueing, delivery, purge. */
    async afterSweep(ticked: ReadonlyMap<string, ClusterState>): Promise<WatchSummary> {
      const now = deps.clock.now();
      // Clusters this sweep ticked are loaded whole already: their coverage costs nothing. The
      // others (no active event) are listed and loaded at most once a minute.
      const all = now - lastCoverage >= COVERAGE_INTERVAL_MS;
      if (all) lastCoverage = now;
      const states = all ? await coverageStates(deps, now, ticked) : [...ticked.values()];
      for (const state of states) {
        const policy = policyFor(deps.settings.QUIESCE_POLICY, state.cluster);
        const c = coverage(state, now, policy);
        deps.telemetry.setCoverage(c);
        due.push({ ns: coverageNotifications(c, now, policy), policy });
      }
      if (deps.notifier.sinksConfigured().length === 0) {
        due.length = 0;
        return { queued: 0, delivered: 0, retried: 0, dropped: 0 };
      }
      let queued = 0;
      for (const { ns, policy } of due.splice(0))
        queued += (await deps.notifier.enqueue(ns, policy)).length;
      const delivery = await deps.notifier.deliverDue();
      if (now - lastPurge >= OUTBOX_PURGE_INTERVAL_MS) {
        lastPurge = now;
        await deps.notifier.purge(now - (deps.settings.QUIESCE_EVENT_RETENTION_DAYS + 1) * DAY_MS);
      }
      return { queued, ...delivery };
    },
  };
}
