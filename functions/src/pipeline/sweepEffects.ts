import { type ClusterState, coverage } from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import { attestationMode } from "../attestation";
import { coverageEffects, type Effects } from "../effects/derive";
import { runEffects } from "../effects/run";
import type { Notification } from "../notify/due";
import type { DeliverySummary } from "../notify/notifier";
import { coverageStates } from "../status/coverageStates";
import type { PipelineDeps } from "./deps";

/** Coverage (every member of every cluster) is recomputed at most this often per instance. */
const COVERAGE_INTERVAL_MS = 60_000;
const OUTBOX_PURGE_INTERVAL_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What the sweep's notification pass did: queued, then as notifier.deliverDue counts. */
export interface SweepNotifications extends DeliverySummary {
  queued: number;
}

/**
 * The sweep's effects, over one round: each tick's (effects/derive.ts) as the cluster is ticked,
 * its notifications held; then coverage of every cluster, queueing and delivery of the outbox.
 * Failures here are logged by the sweep and never fail its decisions.
 */
export function createSweepEffects(deps: PipelineDeps) {
  let lastCoverage = Number.NEGATIVE_INFINITY;
  let lastPurge = Number.NEGATIVE_INFINITY;
  const due: Array<{ ns: readonly Notification[]; policy: Policy }> = [];
  const run = (e: Effects) =>
    runEffects({ telemetry: deps.telemetry, notify: (ns, policy) => due.push({ ns, policy }) }, e);

  return {
    /** After a cluster's tick, committed or (when nothing changed) not: its round's effects. */
    afterTick(e: Effects): void {
      run(e);
    },

    /** After every cluster was ticked: coverage, queueing, delivery, purge. */
    async afterSweep(ticked: ReadonlyMap<string, ClusterState>): Promise<SweepNotifications> {
      const now = deps.clock.now();
      // Clusters this sweep ticked are loaded whole already: their coverage costs nothing. The
      // others (no active event) are listed and loaded at most once a minute.
      const all = now - lastCoverage >= COVERAGE_INTERVAL_MS;
      if (all) lastCoverage = now;
      const states = all ? await coverageStates(deps, now, ticked) : [...ticked.values()];
      for (const state of states) {
        const policy = deps.policies.for(state.cluster);
        const c = coverage(state, now, policy);
        // Attestation off (or no control plane): what members' rows say of it is old news.
        const off = attestationMode(deps.options, policy) === "off";
        run(coverageEffects(off ? { ...c, unattested: [] } : c, now, policy));
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
        await deps.notifier.purge(now - deps.options.eventRetentionMs - DAY_MS);
      }
      return { queued, ...delivery };
    },
  };
}
