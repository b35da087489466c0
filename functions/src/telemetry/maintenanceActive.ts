import type { Attributes, Meter } from "@opentelemetry/api";
import { type ClusterState, groupOf, inMaintenance, memberKey } from "@quiesce/core";

/**
 * "Maintenance active": which VMs, and how many per group, are under maintenance right now, from
 * the approval of an event naming them (or Azure starting it) until it ended and their recover
 * hooks ran (core/src/rules/guestPatching.ts, inMaintenance). Refreshed after each sweep from the
 * clusters it ticked (maintenanceSignal/sync.ts), so it lags by at most one sweep; teams join their own alerts against it
 * (docs/operations.md, "Silencing your own alerts during maintenance").
 */

export const MAINTENANCE_METRICS = {
  vm: "quiesce.vm.maintenance_active",
  group: "quiesce.group.maintenance_active",
} as const;

export interface MaintenanceVm {
  vm: string;
  /** Placement group, else scale set, else "vms" (groupOf); "unknown" without a member row. */
  group: string;
  /** The VM's ARM id when its relay told it (lower case): what an alert's target resource is. */
  resourceId: string | null;
  eventId: string;
}

/** The VMs of the cluster's events in maintenance, each once (its first such event). */
export function maintenanceActiveVms(state: ClusterState): MaintenanceVm[] {
  const out = new Map<string, MaintenanceVm>();
  for (const e of Object.values(state.events)) {
    if (!inMaintenance(e)) continue;
    for (const vm of e.resources) {
      const mk = memberKey(vm);
      if (out.has(mk)) continue;
      const m = state.members[mk];
      out.set(mk, {
        vm,
        group: m ? groupOf(m) : "unknown",
        resourceId: m?.vm.resourceId.toLowerCase() ?? null,
        eventId: e.eventId,
      });
    }
  }
  return [...out.values()];
}

interface Series {
  attributes: Attributes;
  value: number;
  /** When it went to 0: a 0 is exported for a while (so the last value seen is 0), then dropped. */
  zeroSince: number | null;
}

/**
 * Two observable gauges over the latest snapshot: 1 per VM under maintenance, VMs per group. A
 * VM or group that left maintenance is exported as 0 (an SDK keeps a gauge's last value, so a
 * series that simply stopped would read as still 1) for `maxAgeMs`, then dropped.
 */
export class MaintenanceGauges {
  private readonly byCluster = new Map<string, readonly MaintenanceVm[]>();
  private readonly vms = new Map<string, Series>();
  private readonly groups = new Map<string, Series>();
  private takenAt = Number.NEGATIVE_INFINITY;

  /**
   * `maxAgeMs`: a snapshot older than this is exported as all 0. The sweep's timer runs on one
   * instance at a time, and not always the same one: an instance that swept once must not keep
   * reporting VMs under maintenance after another instance took over.
   */
  constructor(
    meter: Meter,
    private readonly maxAgeMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {
    meter
      .createObservableGauge(MAINTENANCE_METRICS.vm, {
        description:
          "1 for each VM under maintenance now (approved until ended and recovered); 0 once it left",
      })
      .addCallback((r) => this.observe(this.vms, (v, a) => r.observe(v, a)));
    meter
      .createObservableGauge(MAINTENANCE_METRICS.group, {
        description: "VMs of the group under maintenance now",
      })
      .addCallback((r) => this.observe(this.groups, (v, a) => r.observe(v, a)));
  }

  /** The whole snapshot at once: a cluster left out has nothing under maintenance. */
  replace(byCluster: ReadonlyMap<string, readonly MaintenanceVm[]>): void {
    const now = this.now();
    this.takenAt = now;
    this.byCluster.clear();
    const vms = new Map<string, Attributes>();
    const groups = new Map<string, { attributes: Attributes; n: number }>();
    for (const [cluster, list] of byCluster) {
      if (list.length > 0) this.byCluster.set(cluster, list);
      for (const v of list) {
        const attributes: Attributes = {
          cluster,
          vm: v.vm,
          group: v.group,
          eventId: v.eventId,
          ...(v.resourceId ? { resourceId: v.resourceId } : {}),
        };
        vms.set(JSON.stringify(attributes), attributes);
        const gk = JSON.stringify([cluster, v.group]);
        const g = groups.get(gk) ?? { attributes: { cluster, group: v.group }, n: 0 };
        groups.set(gk, { ...g, n: g.n + 1 });
      }
    }
    this.update(this.vms, new Map([...vms].map(([k, a]) => [k, { attributes: a, value: 1 }])), now);
    this.update(
      this.groups,
      new Map([...groups].map(([k, g]) => [k, { attributes: g.attributes, value: g.n }])),
      now,
    );
  }

  /** The latest snapshot, fresh or not (the next sweep and tests read it). */
  snapshot(): ReadonlyMap<string, readonly MaintenanceVm[]> {
    return this.byCluster;
  }

  private update(
    series: Map<string, Series>,
    fresh: ReadonlyMap<string, { attributes: Attributes; value: number }>,
    now: number,
  ): void {
    for (const [key, s] of series) {
      if (fresh.has(key)) continue;
      if (s.zeroSince === null) series.set(key, { ...s, value: 0, zeroSince: now });
      else if (now - s.zeroSince > this.maxAgeMs) series.delete(key);
    }
    for (const [key, f] of fresh) series.set(key, { ...f, zeroSince: null });
  }

  private observe(
    series: ReadonlyMap<string, Series>,
    emit: (value: number, a: Attributes) => void,
  ) {
    const stale = this.now() - this.takenAt > this.maxAgeMs;
    for (const s of series.values()) emit(stale ? 0 : s.value, s.attributes);
  }
}
