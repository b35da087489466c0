import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { TableClient } from "@azure/data-tables";
import { type OpCounts, startAzurite } from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import { median, round } from "./stats";

/**
 * (c) Reports per second the coordinator (the real handlers behind the local HTTP host, over
 *     loopback) sustains for 100 and 1,000 distinct VMs at a fixed concurrency, against raw
 *     Azurite single-entity `upsertEntity` calls per second at the same concurrency, measured
 *     right before and after in the same process: the coordinator's share of the storage's
 *     own speed (target >= 0.5).
 * (d) Table operations per report (the store's own counters), for idle heartbeats and for
 *     heartbeats during an event (every VM of a group sees a Scheduled event naming two of them,
 *     one drained and one still draining, so nothing is approved and nothing changes).
 */

export const CONCURRENCY = 16;
const ROUNDS = 3;
const ROUND_MS = 4_000;
const RAW_MS = 3_000;
const WARMUP_MS = 6_000;

interface Ops {
  reads: number;
  queries: number;
  writes: number;
}

export interface LoadRun {
  vms: number;
  concurrency: number;
  seconds: number;
  reports: number;
  errors: number;
  reportsPerSecond: number;
  opsPerReport: Ops & { total: number };
  /** CPU time of the coordinator process per report answered (user + system). */
  coordinatorCpuMsPerReport: number;
}

/** One round: coordinator reports, compared with the raw upserts just before and after it. */
export type Round = LoadRun & { rawUpsertsPerSecond: number; ratio: number };

export type DuringEvent = LoadRun & { events: number };

export interface ThroughputResult {
  concurrency: number;
  /** Every raw measurement, in order. */
  rawUpsertsPerSecond: number[];
  runs: Array<
    LoadRun & {
      /** Median over the rounds of the raw speed around each round. */
      rawUpsertsPerSecond: number;
      /** Median over the rounds of reports/s ÷ raw upserts/s around that round. */
      ratioToRawUpserts: number;
      target: number;
      pass: boolean;
      rounds: Round[];
    }
  >;
  duringEvent: DuringEvent[];
  firstReports: LoadRun;
}

const resourceIdOf = (vm: string) =>
  `/subscriptions/00000000-0000-4000-8000-000000000000/resourceGroups/bench-rg/providers/Microsoft.Compute/virtualMachines/${vm}`;

class Fleet {
  private readonly seqs: number[];
  private readonly boots: string[];
  private readonly events = new Map<number, ScheduledEvent>();
  private groupSize = 10;
  constructor(
    readonly names: string[],
    readonly cluster: string,
  ) {
    this.seqs = names.map(() => 0);
    this.boots = names.map(() => randomUUID());
  }

  /** Every VM of group `g` (groupSize VMs) sees one Scheduled event naming its first two. */
  scheduleEvents(groupSize: number): void {
    const notBefore = new Date(Date.now() + 15 * 60_000).toUTCString();
    for (let g = 0; g * groupSize < this.names.length; g++) {
      this.events.set(g, {
        EventId: randomUUID().toUpperCase(),
        EventType: "Freeze",
        ResourceType: "VirtualMachine",
        Resources: [this.names[g * groupSize] as string, this.names[g * groupSize + 1] as string],
        EventStatus: "Scheduled",
        NotBefore: notBefore,
        Description: "Host server is undergoing maintenance.",
        EventSource: "Platform",
        DurationInSeconds: 5,
      });
    }
    this.groupSize = groupSize;
  }

  private nextSeq(i: number): number {
    const seq = this.seqs[i] ?? 0;
    this.seqs[i] = seq + 1;
    return seq;
  }

  report(i: number): RelayReport {
    const name = this.names[i] as string;
    const now = new Date().toISOString();
    const ev = this.events.get(Math.floor(i / this.groupSize));
    const hooks: RelayReport["hooks"] = [];
    if (ev && ev.Resources[0] === name)
      hooks.push({
        eventId: ev.EventId,
        drain: { status: "succeeded", attempt: 1, startedAt: now, finishedAt: now },
      });
    if (ev && ev.Resources[1] === name)
      hooks.push({ eventId: ev.EventId, drain: { status: "running", attempt: 1, startedAt: now } });
    return {
      protocol: "1.0",
      cluster: this.cluster,
      vm: {
        name,
        vmId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        resourceId: resourceIdOf(name),
      },
      relay: { version: "0.1.0", bootId: this.boots[i] as string, seq: this.nextSeq(i) },
      document: { DocumentIncarnation: ev ? 2 : 1, Events: ev ? [ev] : [] },
      hooks,
      approvals: [],
      sentAt: now,
    };
  }
}

/** Runs `op` from `concurrency` workers until `ms` passed (or `total` ops were started). */
async function drive(
  concurrency: number,
  limit: { ms?: number; total?: number },
  op: (i: number) => Promise<boolean>,
): Promise<{ ok: number; errors: number; seconds: number }> {
  let next = 0;
  let ok = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = limit.ms === undefined ? Number.POSITIVE_INFINITY : start + limit.ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && (limit.total === undefined || next < limit.total)) {
        const i = next++;
        if (await op(i).catch(() => false)) ok++;
        else errors++;
      }
    }),
  );
  return { ok, errors, seconds: (performance.now() - start) / 1000 };
}

async function rawUpserts(connectionString: string, vms: number): Promise<number> {
  const table = TableClient.fromConnectionString(
    connectionString,
    `raw${randomUUID().slice(0, 8)}`,
    {
      allowInsecureConnection: true,
    },
  );
  await table.createTable();
  // About the size of a member row: a JSON record in one string property.
  const d0 = JSON.stringify({
    name: "vm",
    vmId: randomUUID(),
    resourceId: resourceIdOf("vm-0000"),
    lastSeenAt: Date.now(),
    eventKeys: [],
  });
  const r = await drive(CONCURRENCY, { ms: RAW_MS }, async (i) => {
    await table.upsertEntity({ partitionKey: "bench", rowKey: `vm-${i % vms}`, d0 }, "Replace");
    return true;
  });
  await table.deleteTable();
  return r.ok / r.seconds;
}

export interface CoordinatorProcess {
  url: string;
  relayKey: string;
  operatorKey: string;
  stats(opts?: {
    gc?: boolean;
  }): Promise<OpCounts & { cpuMs: number; rssBytes: number; heapUsedBytes: number }>;
  /** With metrics on: exports now, and says how big the export since the last call was. */
  metrics(): Promise<{ bytes: number; points: number }>;
  stop(): Promise<void>;
}

/**
 * POSTs one relay report to a coordinator process over loopback, reading the whole answer;
 * resolves to its HTTP status and wall time. One client for every benchmark that sends reports.
 */
export function reportPoster(
  local: Pick<CoordinatorProcess, "url" | "relayKey">,
): (body: RelayReport) => Promise<{ status: number; text: string; ms: number }> {
  const url = `${local.url.replace(/\/+$/, "")}/api/relay/report`;
  return async (body) => {
    const t0 = performance.now();
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${local.relayKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - t0 };
  };
}

/** The bundled bench/coordinatorProcess.ts, next to this bundle (see bench/run.mjs). */
export function startCoordinatorProcess(
  connectionString: string,
  execArgv: string[] = [],
  metrics = false,
  /** Instances of one deployment share their keys (a folder), as they share the tables. */
  keysDir?: string,
): Promise<CoordinatorProcess> {
  const child = fork(join(__dirname, "coordinatorProcess.cjs"), [], {
    env: {
      ...process.env,
      BENCH_CONNECTION_STRING: connectionString,
      BENCH_METRICS: metrics ? "1" : "0",
      ...(keysDir ? { BENCH_KEYS_DIR: keysDir } : {}),
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // e.g. BENCH_COORDINATOR_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it.
    execArgv: [
      ...execArgv,
      ...(process.env.BENCH_COORDINATOR_NODE_ARGS ?? "").split(" ").filter(Boolean),
    ],
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`coordinator process exited (${code})`));
      const onMessage = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(m as T);
      };
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  return next<{ url: string; relayKey: string; operatorKey: string }>("ready").then((ready) => ({
    ...ready,
    async stats(opts: { gc?: boolean } = {}) {
      const answer = next<{
        stats: OpCounts;
        cpuMs: number;
        rssBytes: number;
        heapUsedBytes: number;
      }>("stats");
      child.send(opts.gc ? "gc-stats" : "stats");
      const { stats, ...rest } = await answer;
      return { ...stats, ...rest };
    },
    async metrics() {
      const answer = next<{ metrics: { bytes: number; points: number } }>("metrics");
      child.send("metrics");
      return (await answer).metrics;
    },
    async stop() {
      child.send("stop");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  }));
}

export async function measureThroughput(
  vmCounts: number[],
  opts: { metrics?: boolean } = {},
): Promise<ThroughputResult> {
  const azurite = await startAzurite();
  try {
    // No sweep in it: the sweep's own table traffic would blur the per-report counts.
    const local = await startCoordinatorProcess(
      azurite.connectionString,
      [],
      opts.metrics ?? false,
    );
    try {
      const send = reportPoster(local);
      const post = async (body: RelayReport) => (await send(body)).status === 200;
      const load = async (
        fleet: Fleet,
        limit: { ms?: number; total?: number },
      ): Promise<LoadRun> => {
        const before = await local.stats();
        const r = await drive(CONCURRENCY, limit, (i) =>
          post(fleet.report(i % fleet.names.length)),
        );
        const after = await local.stats();
        const per = (k: keyof Ops) => round((after[k] - before[k]) / Math.max(1, r.ok), 3);
        const ops = { reads: per("reads"), queries: per("queries"), writes: per("writes") };
        return {
          vms: fleet.names.length,
          concurrency: CONCURRENCY,
          seconds: round(r.seconds, 2),
          reports: r.ok,
          errors: r.errors,
          reportsPerSecond: round(r.ok / r.seconds, 1),
          opsPerReport: { ...ops, total: round(ops.reads + ops.queries + ops.writes, 3) },
          coordinatorCpuMsPerReport: round((after.cpuMs - before.cpuMs) / Math.max(1, r.ok), 3),
        };
      };

      // The machine is shared, so raw upserts and coordinator reports alternate in short rounds
      // (raw, reports, raw, reports, ..., raw) and each round's reports are compared with the raw
      // speed just before and just after it; the figure is the median round.
      // Both sides warm first (fresh processes: JIT, Azurite's tables, connection pools).
      const warm = new Fleet(
        Array.from({ length: 200 }, (_, i) => `warm-${String(i).padStart(3, "0")}`),
        "bench-warm-up",
      );
      await load(warm, { ms: WARMUP_MS });
      await rawUpserts(azurite.connectionString, 200);
      const raws: number[] = [];
      const runs: ThroughputResult["runs"] = [];
      let firstReports: LoadRun | undefined;
      // Every VM of both fleets registers first (its first report writes its member row).
      const fleets = vmCounts.map(
        (n) =>
          new Fleet(
            Array.from({ length: n }, (_, i) => `vm-${String(i).padStart(4, "0")}`),
            `bench-${n}`,
          ),
      );
      for (const fleet of fleets) {
        const first = await load(fleet, { total: fleet.names.length });
        if (fleet.names.length === Math.max(...vmCounts)) firstReports = first;
      }
      // Rounds interleave the fleet sizes, so whatever drifts on the machine touches both alike.
      const rounds = fleets.map((): Round[] => []);
      let rawBefore = await rawUpserts(azurite.connectionString, Math.max(...vmCounts));
      raws.push(round(rawBefore, 1));
      for (let r = 0; r < ROUNDS; r++) {
        for (const [k, fleet] of fleets.entries()) {
          const run = await load(fleet, { ms: ROUND_MS });
          const rawAfter = await rawUpserts(azurite.connectionString, fleet.names.length);
          raws.push(round(rawAfter, 1));
          const around = (rawBefore + rawAfter) / 2;
          rounds[k]?.push({
            ...run,
            rawUpsertsPerSecond: round(around, 1),
            ratio: round(run.reportsPerSecond / around, 3),
          });
          rawBefore = rawAfter;
        }
      }
      for (const [k, fleet] of fleets.entries()) {
        const mine = rounds[k] as Round[];
        const reports = mine.reduce((t, x) => t + x.reports, 0);
        const seconds = mine.reduce((t, x) => t + x.seconds, 0);
        const ops = (key: keyof Ops) =>
          round(mine.reduce((t, x) => t + x.opsPerReport[key] * x.reports, 0) / reports, 3);
        const opsPerReport = {
          reads: ops("reads"),
          queries: ops("queries"),
          writes: ops("writes"),
        };
        const ratio = median(mine.map((x) => x.ratio));
        runs.push({
          vms: fleet.names.length,
          concurrency: CONCURRENCY,
          seconds: round(seconds, 2),
          reports,
          errors: mine.reduce((t, x) => t + x.errors, 0),
          reportsPerSecond: round(reports / seconds, 1),
          opsPerReport: {
            ...opsPerReport,
            total: round(opsPerReport.reads + opsPerReport.queries + opsPerReport.writes, 3),
          },
          coordinatorCpuMsPerReport: round(
            mine.reduce((t, x) => t + x.coordinatorCpuMsPerReport * x.reports, 0) / reports,
            3,
          ),
          rawUpsertsPerSecond: median(mine.map((x) => x.rawUpsertsPerSecond)),
          ratioToRawUpserts: ratio,
          target: 0.5,
          pass: ratio >= 0.5,
          rounds: mine,
        });
      }

      // (d) during an event: one group of 10 VMs with one Scheduled event, then 100 VMs in ten
      // groups of 10, each group with its own (a report loads every active event of its cluster).
      const duringEvent: DuringEvent[] = [];
      for (const vms of [10, 100]) {
        const fleet = new Fleet(
          Array.from({ length: vms }, (_, i) => `ev-${String(i).padStart(3, "0")}`),
          `bench-event-${vms}`,
        );
        await load(fleet, { total: vms });
        fleet.scheduleEvents(10);
        await load(fleet, { total: 2 * vms }); // first sight of each event, readiness rows
        duringEvent.push({ events: vms / 10, ...(await load(fleet, { ms: ROUND_MS })) });
      }

      return {
        concurrency: CONCURRENCY,
        rawUpsertsPerSecond: raws,
        runs,
        duringEvent,
        firstReports: firstReports as LoadRun,
      };
    } finally {
      await local.stop();
    }
  } finally {
    await azurite.stop();
  }
}
