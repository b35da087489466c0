import type { Attributes, Meter } from "@opentelemetry/api";
import type { Coverage } from "@quiesce/core";
import type { NotificationKind, NotificationSink } from "@quiesce/protocol/policy";
import type { TableObserver } from "../store/tables";
import type { Fact } from "./facts";
import { MaintenanceGauges } from "./maintenanceActive";

/**
 * The coordinator's metrics (docs/operations.md lists them with their KQL). Instruments are
 * created once per coordinator from the Meter it is given: the global one (no-op until
 * Azure Monitor or another SDK registers a provider) or a test's own MeterProvider.
 */

export const METRICS = {
  events: "quiesce.events",
  drainDuration: "quiesce.event.drain_duration",
  approvalDelay: "quiesce.event.approval_delay",
  noticeSaved: "quiesce.event.notice_saved",
  hookFailures: "quiesce.hook.failures",
  blockers: "quiesce.blockers",
  relaysLive: "quiesce.relays.live",
  relaysKnown: "quiesce.relays.known",
  groupRelaysLive: "quiesce.group.relays.live",
  groupsUncovered: "quiesce.groups.uncovered",
  eventsWithoutRelay: "quiesce.events.without_relay",
  reports: "quiesce.reports",
  reportsRefused: "quiesce.reports.refused",
  conflicts: "quiesce.table.conflicts",
  retries: "quiesce.report.retries",
  tableDuration: "quiesce.table.duration",
  unreadableRows: "quiesce.store.unreadable_rows",
  notifications: "quiesce.notifications",
  alerts: "quiesce.alerts",
  controlPlane: "quiesce.controlplane.calls",
  controlPlaneDuration: "quiesce.controlplane.duration",
  attestation: "quiesce.attestation.reports",
  attestationProofs: "quiesce.attestation.proofs",
  eventGridRejected: "quiesce.eventgrid.rejected",
} as const;

export type ReportOutcome = "applied" | "stale" | "rejected" | "unavailable";

export class Telemetry {
  private readonly events;
  private readonly drainDuration;
  private readonly approvalDelay;
  private readonly noticeSaved;
  private readonly hookFailures;
  private readonly reports;
  private readonly reportsRefused;
  private readonly conflicts;
  private readonly retries;
  private readonly tableDuration;
  private readonly unreadableRows;
  private readonly notifications;
  private readonly alerts;
  private readonly controlPlaneCalls;
  private readonly controlPlaneDuration;
  private readonly attestationReports;
  private readonly attestationProofs;
  private readonly eventGridRejectedEvents;
  /** Snapshots the sweep refreshes; the observable gauges read them at export time. */
  private readonly coverageByCluster = new Map<string, Coverage>();
  private readonly blockersByCluster = new Map<string, Record<string, number>>();
  /** Which VMs and groups are under maintenance (maintenanceActive.ts). */
  readonly maintenance: MaintenanceGauges;

  constructor(meter: Meter) {
    this.maintenance = new MaintenanceGauges(meter);
    this.events = meter.createCounter(METRICS.events, {
      description:
        "Events by outcome: approved, approvedByPolicy, forced, expiredAtNotBefore, cancelled, unplanned, advisory (first seen; never approved)",
    });
    this.drainDuration = meter.createHistogram(METRICS.drainDuration, {
      description: "From first sight of an event to every affected VM drained",
      unit: "s",
    });
    this.approvalDelay = meter.createHistogram(METRICS.approvalDelay, {
      description: "From the last drain finished to the approval confirmed by IMDS",
      unit: "s",
    });
    this.noticeSaved = meter.createHistogram(METRICS.noticeSaved, {
      description: "Share of the Scheduled → NotBefore window left when approved (0: missed)",
      unit: "1",
    });
    this.hookFailures = meter.createCounter(METRICS.hookFailures, {
      description: "Drain and recover hooks that failed, timed out or were interrupted",
    });
    this.reports = meter.createCounter(METRICS.reports, { description: "Relay reports answered" });
    this.reportsRefused = meter.createCounter(METRICS.reportsRefused, {
      description:
        "Relay reports refused at authentication (401, 403), by status; the VM they claim is on GET /api/alerts",
    });
    this.conflicts = meter.createCounter(METRICS.conflicts, {
      description: "ETag conflicts (412/409) met while writing a decision",
    });
    this.retries = meter.createCounter(METRICS.retries, {
      description: "Reports re-decided from a fresh read after a conflict",
    });
    this.tableDuration = meter.createHistogram(METRICS.tableDuration, {
      description: "Table Storage call latency",
      unit: "ms",
    });
    this.unreadableRows = meter.createCounter(METRICS.unreadableRows, {
      description:
        "Stored rows read that do not parse (left out, never trusted: docs/coordinator.md), by table",
    });
    this.notifications = meter.createCounter(METRICS.notifications, {
      description: "Notification deliveries: delivered, retried, dropped",
    });
    this.attestationReports = meter.createCounter(METRICS.attestation, {
      description:
        "Reports by attestation standing: bound, unbound (accepted under prefer), refused",
    });
    this.attestationProofs = meter.createCounter(METRICS.attestationProofs, {
      description:
        "Attested documents checked, by outcome: verified, or the refusal's code (vmId, san, chain, ...), or unavailable",
    });
    this.eventGridRejectedEvents = meter.createCounter(METRICS.eventGridRejected, {
      description:
        "Events of Event Grid deliveries that could not be used (dead-lettered or retried)",
    });
    this.controlPlaneCalls = meter.createCounter(METRICS.controlPlane, {
      description:
        "Control-plane actions through Azure Resource Manager, by operation and outcome (ok or ARM's error code)",
    });
    this.controlPlaneDuration = meter.createHistogram(METRICS.controlPlaneDuration, {
      description:
        "Time of a control-plane action through Azure Resource Manager, retries included",
      unit: "ms",
    });
    this.alerts = meter.createCounter(METRICS.alerts, {
      description:
        "Coverage alerts raised (relaySilent, groupUncovered, vmNeverRegistered, imdsFailing, attestationFailed)",
    });
    meter
      .createObservableGauge(METRICS.relaysLive, { description: "Relays reporting, per cluster" })
      .addCallback((r) => {
        for (const c of this.coverageByCluster.values()) r.observe(c.live, { cluster: c.cluster });
      });
    meter
      .createObservableGauge(METRICS.relaysKnown, { description: "Relays that ever reported" })
      .addCallback((r) => {
        for (const c of this.coverageByCluster.values())
          r.observe(c.members, { cluster: c.cluster });
      });
    meter
      .createObservableGauge(METRICS.groupRelaysLive, {
        description: "Live relays per placement group, scale set and zone",
      })
      .addCallback((r) => {
        for (const c of this.coverageByCluster.values())
          for (const g of c.groups)
            r.observe(g.live, { cluster: c.cluster, groupKind: g.kind, group: g.id });
      });
    meter
      .createObservableGauge(METRICS.groupsUncovered, {
        description: "Groups with members and no live relay",
      })
      .addCallback((r) => {
        for (const c of this.coverageByCluster.values())
          r.observe(c.uncovered.length, { cluster: c.cluster });
      });
    meter
      .createObservableGauge(METRICS.eventsWithoutRelay, {
        description:
          "Active events naming VMs that never had a relay (seen through a neighbour or Event Grid)",
      })
      .addCallback((r) => {
        for (const c of this.coverageByCluster.values())
          r.observe(c.unregistered.length, { cluster: c.cluster });
      });
    meter
      .createObservableGauge(METRICS.blockers, {
        description: "VMs holding up active events, by reason",
      })
      .addCallback((r) => {
        for (const [cluster, byReason] of this.blockersByCluster)
          for (const [reason, n] of Object.entries(byReason)) r.observe(n, { cluster, reason });
      });
  }

  recordFacts(cluster: string, facts: readonly Fact[]): void {
    for (const f of facts) {
      switch (f.kind) {
        case "outcome":
          this.events.add(1, {
            cluster,
            eventType: f.eventType,
            outcome: f.outcome,
            ...(f.rule ? { rule: f.rule } : {}),
          });
          break;
        case "drained":
          this.drainDuration.record(f.seconds, { cluster, eventType: f.eventType });
          break;
        case "approvalDelay":
          this.approvalDelay.record(f.seconds, { cluster, eventType: f.eventType });
          break;
        case "noticeSaved":
          this.noticeSaved.record(f.ratio, {
            cluster,
            eventType: f.eventType,
            outcome: f.outcome,
          });
          break;
        case "hookFailed":
          this.hookFailures.add(1, { cluster, hook: f.hook, reason: f.reason });
          break;
      }
    }
  }

  report(cluster: string, outcome: ReportOutcome, attempts = 1, conflicts = 0): void {
    const attrs: Attributes = { cluster, outcome };
    this.reports.add(1, attrs);
    if (attempts > 1) this.retries.add(attempts - 1, { cluster });
    if (conflicts > 0) this.conflicts.add(conflicts, { cluster });
  }

  /**
   * A report refused at authentication. No cluster or VM attribute: both are the caller's
   * unverified claim, and anyone could mint any number of them.
   */
  reportRefused(status: number): void {
    this.reportsRefused.add(1, { status: String(status) });
  }

  readonly table: TableObserver = (table, operation, ms, outcome) => {
    if (outcome === "unreadable") this.unreadableRows.add(1, { table });
    else this.tableDuration.record(ms, { table, operation, outcome });
  };

  notification(
    cluster: string,
    kind: NotificationKind,
    sink: NotificationSink,
    outcome: "delivered" | "retried" | "dropped",
  ): void {
    this.notifications.add(1, { cluster, kind, sink, outcome });
  }

  /** A control-plane action: acknowledge, loadBalancerDown, loadBalancerRestore, gate. */
  controlPlane(cluster: string, operation: string, outcome: string, ms: number): void {
    this.controlPlaneCalls.add(1, { cluster, operation, outcome });
    if (outcome === "ok") this.controlPlaneDuration.record(ms, { cluster, operation });
  }

  /** One report's attestation standing ("refused": not applied, under require). */
  attestation(cluster: string, standing: "bound" | "unbound" | "refused"): void {
    this.attestationReports.add(1, { cluster, standing });
  }

  /** One proof checked: "verified", a refusal's code, or "unavailable"; `armRead` when ARM was asked. */
  attestationProof(cluster: string, outcome: string, armRead: boolean): void {
    this.attestationProofs.add(1, { cluster, outcome, armRead });
  }

  /** Events of a delivery that could not be used, by channel ("webhook" or "trigger"). */
  eventGridRejected(channel: "webhook" | "trigger", count: number): void {
    this.eventGridRejectedEvents.add(count, { channel });
  }

  alert(cluster: string, kind: NotificationKind): void {
    this.alerts.add(1, { cluster, kind });
  }

  setCoverage(c: Coverage): void {
    this.coverageByCluster.set(c.cluster, c);
  }

  setBlockers(cluster: string, byReason: Record<string, number>): void {
    this.blockersByCluster.set(cluster, byReason);
  }
}
