import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { applyReport, emptyClusterState } from "@quiesce/core";
import { startAzurite } from "@quiesce/functions";
import { parseJsonWith } from "@quiesce/protocol";
import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import { reportPoster } from "@quiesce/testkit/coordinator";
import { scheduled } from "@quiesce/testkit/documents";
import { hookRun, resourceIdOf } from "@quiesce/testkit/fleet";
import { startBenchCoordinator } from "./coordinator";
import {
  type CostTable,
  dollars,
  fmt,
  Prices,
  perVmMonth,
  type ReportCosts,
  SECONDS_PER_MONTH,
} from "./costModel";
import { round, type Summary, summary } from "./stats";

/**
 * (g) Cost per VM-month, computed from what this run measures (bench/costModel.ts) and the price
 * table (bench/prices.json), at the defaults: the coordinator's default policy and the instance
 * memory infra/main.bicep deploys. Measured here: the wall time of a report (sequential reports
 * over loopback to the coordinator in its own process, as the Functions host runs it; the
 * estimate of its execution time), table operations per report (the store's counters), the
 * coordinator's resident memory, and the bytes of a metrics export. The share of idle heartbeats
 * that write `lastSeenAt` at the default cadence is counted by running the decision core over a
 * month of heartbeats (a real run would take a month).
 */

const VMS = 100;
const SEQUENTIAL = 400;
const EVENT_VMS = 10;

export interface CostResult {
  prices: Prices;
  policy: { idleReportSeconds: number; activeReportSeconds: number };
  instanceMemoryMB: number;
  idle: {
    wallMs: Summary;
    /** Per heartbeat on the instance that holds the member row, over this short run. */
    opsPerReport: { reads: number; queries: number; writes: number };
    /** Writes per heartbeat at the default cadence, from the decision core over a month. */
    steadyWritesPerHeartbeat: number;
  };
  event: { wallMs: Summary; opsPerReport: { reads: number; queries: number; writes: number } };
  coordinatorRssMB: { afterRegistering1000: number; max: number };
  telemetry: {
    /** Request rows and traces per successful report (functions/host.json keeps them out). */
    requestTelemetryBytesPerReport: number;
    /** One export of the coordinator's metrics after the idle load, as JSON. */
    metricsExportBytes: number;
    metricsExportPoints: number;
    /** At one export a minute (the OTel SDK's default interval), per deployment. */
    metricsGbPerMonth: number;
  };
  idleVmMonth: CostTable;
  /** The same with every heartbeat on an instance that has not seen the relay (one read more). */
  idleVmMonthColdInstance: CostTable;
  eventVmHour: CostTable;
  target: number;
  pass: boolean;
}

/** `param instanceMemoryMB int = N` in infra/main.bicep: what a deployment gets by default. */
export function deployedInstanceMemoryMB(root: string): number {
  const bicep = readFileSync(join(root, "infra", "main.bicep"), "utf8");
  const m = /param instanceMemoryMB int = (\d+)/.exec(bicep);
  if (!m) throw new Error("infra/main.bicep: no instanceMemoryMB default");
  return Number(m[1]);
}

const identity = (name: string, i: number): RelayReport["vm"] => ({
  name,
  vmId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  resourceId: resourceIdOf(name),
});

function idleReport(cluster: string, name: string, i: number, seq: number): RelayReport {
  return {
    protocol: "1.0",
    cluster,
    vm: identity(name, i),
    relay: { version: "0.1.0", bootId: `boot-${i}`, seq },
    document: { DocumentIncarnation: 1, Events: [] },
    hooks: [],
    approvals: [],
    sentAt: new Date().toISOString(),
  };
}

/** Member-row writes per idle heartbeat at the policy's idle cadence, over a month. */
export function steadyIdleWrites(policy: Policy): number {
  let state = emptyClusterState("cost");
  let now = Date.parse("2026-01-01T00:00:00Z");
  state = applyReport(state, idleReport("cost", "vm", 0, 0), now, policy).state;
  const heartbeats = Math.floor(SECONDS_PER_MONTH / policy.idleReportSeconds);
  let writes = 0;
  for (let i = 1; i <= heartbeats; i++) {
    now += policy.idleReportSeconds * 1000 + 20; // a report round trip late, as a relay is
    const before = state.members;
    state = applyReport(state, idleReport("cost", "vm", 0, i), now, policy).state;
    if (state.members !== before) writes++;
  }
  return round(writes / heartbeats, 3);
}

export async function measureCost(root: string): Promise<CostResult> {
  const read = parseJsonWith(Prices, readFileSync(join(root, "bench", "prices.json"), "utf8"));
  if (!read.ok) throw new Error(`bench/prices.json: ${read.error}`);
  const prices = read.value;
  const policy = DEFAULT_POLICY;
  const instanceMemoryMB = deployedInstanceMemoryMB(root);
  const azurite = await startAzurite();
  try {
    const local = await startBenchCoordinator(azurite.connectionString, { metrics: true });
    try {
      const send = reportPoster(local);
      const post = async (body: RelayReport): Promise<number> => {
        const { status, ms } = await send(body);
        if (status !== 200) throw new Error(`report answered ${status}`);
        return ms;
      };
      const parallel = async (n: number, make: (i: number) => RelayReport) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (next < n) await post(make(next++));
          }),
        );
      };
      let rssMax = 0;
      const sample = async () => {
        const s = await local.stats();
        rssMax = Math.max(rssMax, s.rssBytes);
        return s;
      };
      const sequential = async (make: (i: number) => RelayReport) => {
        const before = await sample();
        const walls: number[] = [];
        for (let i = 0; i < SEQUENTIAL; i++) walls.push(await post(make(i)));
        const after = await sample();
        const per = (k: "reads" | "queries" | "writes") =>
          round((after[k] - before[k]) / SEQUENTIAL, 3);
        return {
          wallMs: summary(walls.map((w) => round(w, 2))),
          opsPerReport: { reads: per("reads"), queries: per("queries"), writes: per("writes") },
        };
      };

      // 1,000 VMs register (for the resident memory), then a warm-up, then the measured idle run.
      const name = (i: number) => `vm-${String(i).padStart(4, "0")}`;
      let seq = 0;
      await parallel(1000, (i) => idleReport("cost-1000", name(i), i, seq++));
      const afterRegistering = await sample();
      await parallel(VMS, (i) => idleReport("cost", name(i), i, seq++));
      for (let i = 0; i < 200; i++) await post(idleReport("cost", name(i % VMS), i % VMS, seq++));
      await local.metrics(); // start the metrics window at the idle run
      const idle = await sequential((i) => idleReport("cost", name(i % VMS), i % VMS, seq++));
      const exported = await local.metrics();

      // During an event: a group of 10 VMs sees one Scheduled event naming two (one drained, one
      // still draining), so nothing changes and nothing is approved: a steady event-time report.
      const ev = scheduled(randomUUID().toUpperCase(), [name(0), name(1)], {
        NotBefore: new Date(Date.now() + 15 * 60_000).toUTCString(),
      });
      const drained = { eventId: ev.EventId, drain: hookRun("succeeded") };
      const draining = { eventId: ev.EventId, drain: hookRun("running") };
      const eventReport = (i: number): RelayReport => ({
        ...idleReport("cost-event", name(i), i, seq++),
        document: { DocumentIncarnation: 2, Events: [ev] },
        hooks: i === 0 ? [drained] : i === 1 ? [draining] : [],
      });
      for (let i = 0; i < 3 * EVENT_VMS; i++) await post(eventReport(i % EVENT_VMS));
      const event = await sequential((i) => eventReport(i % EVENT_VMS));

      const steadyWrites = steadyIdleWrites(policy);
      const idleCosts: ReportCosts = {
        wallMs: idle.wallMs.median,
        // On the instance holding the row, as measured, with the steady write share.
        tableOps: round(idle.opsPerReport.reads + idle.opsPerReport.queries + steadyWrites, 3),
        telemetryBytes: 0,
      };
      const reportsPerMonth = SECONDS_PER_MONTH / policy.idleReportSeconds;
      const idleVmMonth = perVmMonth(reportsPerMonth, idleCosts, instanceMemoryMB, prices);
      const idleVmMonthColdInstance = perVmMonth(
        reportsPerMonth,
        { ...idleCosts, tableOps: round(idleCosts.tableOps + 1, 3) },
        instanceMemoryMB,
        prices,
      );
      const eventOps = event.opsPerReport;
      const eventVmHour = perVmMonth(
        3600 / policy.activeReportSeconds,
        {
          wallMs: event.wallMs.median,
          tableOps: round(eventOps.reads + eventOps.queries + eventOps.writes, 3),
          telemetryBytes: 0,
        },
        instanceMemoryMB,
        prices,
      );
      const exportsPerMonth = SECONDS_PER_MONTH / 60;
      const target = 0.02;
      return {
        prices,
        policy: {
          idleReportSeconds: policy.idleReportSeconds,
          activeReportSeconds: policy.activeReportSeconds,
        },
        instanceMemoryMB,
        idle: { ...idle, steadyWritesPerHeartbeat: steadyWrites },
        event,
        coordinatorRssMB: {
          afterRegistering1000: round(afterRegistering.rssBytes / 1e6, 1),
          max: round(rssMax / 1e6, 1),
        },
        telemetry: {
          requestTelemetryBytesPerReport: 0,
          metricsExportBytes: exported.bytes,
          metricsExportPoints: exported.points,
          metricsGbPerMonth: round((exported.bytes * exportsPerMonth) / 1024 ** 3, 3),
        },
        idleVmMonth,
        idleVmMonthColdInstance,
        eventVmHour,
        target,
        pass: idleVmMonthColdInstance.totalUsd <= target,
      };
    } finally {
      await local.stop();
    }
  } finally {
    await azurite.stop();
  }
}

/** The tables for latest.md and, between its markers, docs/deploy.md. */
export function renderCost(c: CostResult): string[] {
  const table = (t: CostTable, cold?: CostTable) => [
    cold
      ? "| Per VM | Quantity | Cost | Every heartbeat on a cold instance |"
      : "| Per VM | Quantity | Cost |",
    cold ? "| --- | --- | --- | --- |" : "| --- | --- | --- |",
    ...t.lines.map(
      (l, i) =>
        `| ${l.item} | ${l.quantity} | ${dollars(l.usd)} |${cold ? ` ${dollars(cold.lines[i]?.usd ?? 0)} |` : ""}`,
    ),
    `| **Total** | | **${dollars(t.totalUsd)}** |${cold ? ` **${dollars(cold.totalUsd)}** |` : ""}`,
  ];
  const p = c.prices;
  return [
    `Defaults: idle heartbeat every ${c.policy.idleReportSeconds} s, active interval ${c.policy.activeReportSeconds} s, instance memory ${c.instanceMemoryMB} MB (infra/main.bicep). Prices: bench/prices.json (${p.date}; not checked against Azure's live pricing pages). Measured in this run: an idle heartbeat takes ${c.idle.wallMs.median} ms (median; p90 ${c.idle.wallMs.p90} ms) over loopback, ${c.idle.opsPerReport.reads} reads and ${c.idle.opsPerReport.queries} queries on the instance holding the row, and writes \`lastSeenAt\` on ${c.idle.steadyWritesPerHeartbeat} of heartbeats at the default cadence; a report during an event takes ${c.event.wallMs.median} ms and ${fmt(c.event.opsPerReport.reads + c.event.opsPerReport.queries + c.event.opsPerReport.writes, 2)} table operations. Request telemetry per successful report: ${c.telemetry.requestTelemetryBytesPerReport} B (functions/host.json).`,
    "",
    `**Idle, per VM-month** (${fmt(SECONDS_PER_MONTH / c.policy.idleReportSeconds)} heartbeats; target ≤ $${c.target}: ${c.pass ? "met" : "**missed**"}, cold-instance column):`,
    "",
    ...table(c.idleVmMonth, c.idleVmMonthColdInstance),
    "",
    `**During an event, per VM-hour** (${fmt(3600 / c.policy.activeReportSeconds)} reports):`,
    "",
    ...table(c.eventVmHour),
    "",
    `Per deployment, not per VM: one export of the coordinator's metrics after the idle load was ${fmt(c.telemetry.metricsExportBytes)} bytes as JSON (${c.telemetry.metricsExportPoints} points), ${c.telemetry.metricsGbPerMonth} GB a month at one export a minute, inside Log Analytics' ${p.logAnalytics.freeGbPerMonth} GB free. Coordinator process resident memory: ${c.coordinatorRssMB.afterRegistering1000} MB after 1,000 relays registered, ${c.coordinatorRssMB.max} MB at most in this run.`,
  ];
}
