import {
  type ClusterState,
  conflictingEvents,
  decidePatchRunCancel,
  type GateVerdict,
  guestPatchingVerdict,
  type Transition,
} from "@quiesce/core";
import type { Clock, Logger } from "@quiesce/protocol";
import type { GuestPatching } from "@quiesce/protocol/policy";
import type { PatchRunEvent } from "@quiesce/protocol/published";
import { cancelMaintenanceRun } from "../arm/applyUpdates";
import type { ArmClient } from "../arm/client";
import type { Notifier } from "../notify/notifier";
import type { Policies } from "../options";
import type { ClusterStore } from "../store";
import { patchRunNotification } from "./notification";
import { mergeRunEvent, type PatchRunRecord, type PatchRunTable, viewOf } from "./runTable";

/**
 * Update Manager's patch runs beside the clusters' scheduled events (docs/control-plane.md,
 * "Guest patching"): each pre- or post-maintenance event is merged into its run's row; a
 * pre-event meeting a cluster's event in maintenance has the run cancelled through ARM before its
 * cut-off (claim on the row, PUT, outcome on the row and in the events' history), decided by the
 * core (core/src/rules/guestPatching.ts) on every copy of the delivery, so a redelivery retries a
 * cancel that failed. The gate's verdict reads the runs of a cluster's configurations.
 */

/** A claim older than this is an instance that died mid-call: another may try again. */
const CLAIM_MS = 60_000;
const MAX_ATTEMPTS = 5;

export interface GuestPatchingDeps {
  runs: PatchRunTable;
  store: ClusterStore;
  policies: Policies;
  clock: Clock;
  /** Null without the control plane (QUIESCE_CONTROL_PLANE): no run can be cancelled. */
  arm: ArmClient | null;
  log: Logger;
  /** Where the outcome is told (notify kind `guestPatching`); absent: history and log only. */
  notifier?: Pick<Notifier, "afterCommit">;
}

export interface PatchRunSummary {
  applied: number;
  unchanged: number;
  cancelled: number;
  /** Cancels wanted that did not land: the delivery is to be retried. */
  failed: number;
}

export class GuestPatchingRuns {
  constructor(private readonly deps: GuestPatchingDeps) {}

  async intake(events: readonly PatchRunEvent[]): Promise<PatchRunSummary> {
    const summary: PatchRunSummary = { applied: 0, unchanged: 0, cancelled: 0, failed: 0 };
    for (const e of events) {
      const now = this.deps.clock.now();
      const { before, after } = await this.deps.runs.update(
        e.correlationId,
        e.maintenanceConfigurationId,
        (stored) => mergeRunEvent(stored, e, now),
      );
      if (before === after) summary.unchanged++;
      else summary.applied++;
      if (e.kind !== "pre") continue;
      const outcome = await this.considerCancel(after);
      if (outcome === "cancelled") summary.cancelled++;
      if (outcome === "failed") summary.failed++;
    }
    return summary;
  }

  /** The guest-patching gate's verdict for a cluster (null when its policy has none). */
  async verdict(g: GuestPatching): Promise<GateVerdict | null> {
    if (!g.holdApprovalsDuringPatching || g.maintenanceConfigurations.length === 0) return null;
    const now = this.deps.clock.now();
    const runs = await this.deps.runs.current(g.maintenanceConfigurations, now);
    return guestPatchingVerdict(g, runs.map(viewOf), now);
  }

  /** Clusters with an event not ended whose policy wants this run's configuration cancelled. */
  private async candidates(run: PatchRunRecord): Promise<string[]> {
    const wants = (g: GuestPatching) =>
      g.whileEventActive === "cancel" &&
      g.maintenanceConfigurations.some((c) => c.toLowerCase() === run.maintenanceConfigurationId);
    const { all } = this.deps.policies;
    if (
      !wants(all.default.guestPatching) &&
      ![...all.clusters.values()].some((p) => wants(p.guestPatching))
    )
      return [];
    // Clusters with an event not ended (retention cut-off 0: none of the ended ones).
    const active = await this.deps.store.clustersToSweep(0);
    return active.filter((c) => wants(this.deps.policies.for(c).guestPatching));
  }

  private async considerCancel(run: PatchRunRecord): Promise<"cancelled" | "failed" | "none"> {
    if (run.cancel?.state === "cancelled" || run.cancel?.state === "tooLate") return "none";
    const now = this.deps.clock.now();
    const asking: Array<{ cluster: string; state: ClusterState; reason: string; keys: string[] }> =
      [];
    const late: Array<{ cluster: string; state: ClusterState; reason: string; keys: string[] }> =
      [];
    for (const cluster of await this.candidates(run)) {
      const { state } = await this.deps.store.loadCluster(cluster);
      const d = decidePatchRunCancel(
        this.deps.policies.for(cluster).guestPatching,
        state,
        viewOf(run),
        now,
      );
      if (d.cancel)
        asking.push({ cluster, state, reason: d.reason, keys: d.events.map((e) => e.key) });
      else if (d.reason.startsWith("too late"))
        late.push({
          cluster,
          state,
          reason: d.reason,
          keys: conflictingEvents(state).map((e) => e.key),
        });
    }
    if (asking.length === 0) {
      const first = late[0];
      if (first) {
        const clusters = late.map((l) => l.cluster);
        const reason = `${first.cluster}: ${first.reason}`;
        await this.record(run, { state: "tooLate", clusters, reason, detail: null }, late);
      }
      return "none";
    }
    const clusters = asking.map((a) => a.cluster);
    const reason = asking[0]?.reason ?? "";
    const claimed = await this.claim(run, clusters, reason, now);
    if (!claimed) return "none";
    const log = this.deps.log.child({ correlationId: run.correlationId, clusters });
    if (!this.deps.arm) {
      await this.record(
        claimed,
        {
          state: "failed",
          clusters,
          reason,
          detail: "the control plane is off: no ARM client to cancel with",
        },
        asking,
      );
      log.error("guest patching: a run should be cancelled but the control plane is off");
      return "failed";
    }
    const r = await cancelMaintenanceRun(this.deps.arm, run.correlationId);
    if (r.ok) {
      await this.record(
        claimed,
        {
          state: "cancelled",
          clusters,
          reason,
          detail: `ARM ${r.value.status}, run ${r.value.runStatus ?? "status not given"}`,
        },
        asking,
      );
      log.warn("guest patching: run cancelled through ARM", { reason });
      return "cancelled";
    }
    const detail = `ARM ${r.error.status || "request"} ${r.error.code}: ${r.error.message}`;
    await this.record(claimed, { state: "failed", clusters, reason, detail }, asking);
    log.error("guest patching: cancel failed", { detail });
    return "failed";
  }

  /** Takes the run's cancel for this instance; null when another holds it or it is settled. */
  private async claim(run: PatchRunRecord, clusters: string[], reason: string, now: number) {
    let won = false;
    const { after } = await this.deps.runs.update(
      run.correlationId,
      run.maintenanceConfigurationId,
      (stored) => {
        const r = stored ?? run;
        const c = r.cancel;
        won = false;
        if (c && (c.state === "cancelled" || c.state === "tooLate")) return r;
        if (c?.state === "claimed" && now - c.at < CLAIM_MS) return r;
        if (c && c.attempts >= MAX_ATTEMPTS) return r;
        won = true;
        return {
          ...r,
          cancel: {
            state: "claimed",
            at: now,
            clusters,
            reason,
            detail: null,
            attempts: (c?.attempts ?? 0) + 1,
          },
        };
      },
    );
    return won ? after : null;
  }

  /** The outcome on the run's row, and in the history of each asking cluster's events. */
  private async record(
    run: PatchRunRecord,
    outcome: {
      state: "cancelled" | "failed" | "tooLate";
      clusters: string[];
      reason: string;
      detail: string | null;
    },
    asking: ReadonlyArray<{ cluster: string; state: ClusterState; keys: string[] }>,
  ): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.runs.update(run.correlationId, run.maintenanceConfigurationId, (stored) => {
      const r = stored ?? run;
      return { ...r, cancel: { ...outcome, at: now, attempts: r.cancel?.attempts ?? 0 } };
    });
    const words =
      outcome.state === "cancelled"
        ? `${outcome.reason} (${outcome.detail})`
        : `guest patching: cancel of run ${run.correlationId} ${outcome.state === "failed" ? `failed: ${outcome.detail}` : `not possible: ${outcome.reason}`}`;
    for (const a of asking) {
      const transitions: Transition[] = a.keys.flatMap((k) => {
        const e = a.state.events[k];
        return e ? [{ eventKey: k, at: now, from: e.phase, to: e.phase, reason: words }] : [];
      });
      await this.deps.store.appendHistory(a.cluster, transitions);
      const n = patchRunNotification(
        a.cluster,
        run,
        outcome,
        a.keys.map((k) => a.state.events[k]?.eventId ?? k),
        now,
        this.deps.policies.for(a.cluster),
      );
      if (n) this.deps.notifier?.afterCommit([n], this.deps.policies.for(a.cluster));
    }
  }
}
