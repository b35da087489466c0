import { startAzurite } from "@quiesce/functions";
import type { CoordinatorProcess } from "@quiesce/testkit/coordinator";
import { startBenchCoordinator } from "./coordinator";
import { CONCURRENCY, EventFleet, type LoadRun, loadRun, type Ops, rawUpserts } from "./load";
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

const ROUNDS = 3;
const ROUND_MS = 4_000;
const WARMUP_MS = 6_000;

export type { LoadRun };

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
  /** `--only during-event` with BENCH_BASELINE_COORDINATOR: the same load on the baseline, side by side. */
  duringEventBaseline?: { bundle: string; duringEvent: DuringEvent[] };
  firstReports: LoadRun;
}

type Load = (fleet: EventFleet, limit: { ms?: number; total?: number }) => Promise<LoadRun>;

/**
 * A fresh coordinator's warm-up: idle heartbeats, then heartbeats during events (another cluster),
 * so that neither figure pays for compiling the other's path: (d) measured its first fleet while
 * the event path was still being compiled (1.1 ms per report for 10 VMs against 0.8 for 100).
 */
async function warmUp(load: Load): Promise<void> {
  await load(new EventFleet("warm-", 200, 3, "bench-warm-up"), { ms: WARMUP_MS });
  const during = await eventFleet(load, 100, "bench-warm-up-events");
  await load(during, { ms: WARMUP_MS / 2 });
}

/** (d)'s fleet of `vms` VMs in groups of 10, registered, each group seeing its event. */
async function eventFleet(load: Load, vms: number, cluster: string): Promise<EventFleet> {
  const fleet = new EventFleet("ev-", vms, 3, cluster);
  await load(fleet, { total: vms });
  fleet.scheduleEvents(10);
  await load(fleet, { total: 2 * vms }); // first sight of each event, readiness rows
  return fleet;
}

/**
 * (d) during an event: one group of 10 VMs with one Scheduled event, then 100 VMs in ten groups
 * of 10, each group with its own (a report loads every active event of its cluster).
 */
async function measureDuringEvent(load: Load): Promise<DuringEvent[]> {
  const duringEvent: DuringEvent[] = [];
  for (const vms of [10, 100]) {
    const fleet = await eventFleet(load, vms, `bench-event-${vms}`);
    duringEvent.push({ events: vms / 10, ...(await load(fleet, { ms: ROUND_MS })) });
  }
  return duringEvent;
}

export interface DuringEventAB {
  duringEvent: DuringEvent[];
  /** The same load on a coordinator built from other code (BENCH_BASELINE_COORDINATOR). */
  baseline?: { bundle: string; duringEvent: DuringEvent[] };
}

/**
 * `--only during-event`: (d)'s heartbeats during events alone, on a fresh Azurite and coordinator
 * warmed as (c) warms them, for profiling the coordinator's CPU per report (with
 * BENCH_COORDINATOR_NODE_ARGS) without the minute (c) takes first. With BENCH_BASELINE_COORDINATOR
 * (a coordinator.cjs bundled from other code) both run side by side on the same Azurite, each
 * with its own fleet and load generator, at the same time.
 */
export async function measureDuringEventAlone(): Promise<DuringEventAB> {
  const baseline = process.env.BENCH_BASELINE_COORDINATOR;
  const azurite = await startAzurite();
  const started: CoordinatorProcess[] = [];
  try {
    const start = async (bundle?: string) => {
      const c = await startBenchCoordinator(azurite.connectionString, bundle ? { bundle } : {});
      started.push(c);
      const load: Load = (fleet, limit) => loadRun(c, fleet, limit);
      await warmUp(load);
      return load;
    };
    const ours = await start();
    if (!baseline) return { duringEvent: await measureDuringEvent(ours) };
    const base = await start(baseline);
    const measured = { ours: [] as DuringEvent[], base: [] as DuringEvent[] };
    for (const vms of [10, 100]) {
      const fleets = {
        ours: await eventFleet(ours, vms, `bench-event-${vms}`),
        base: await eventFleet(base, vms, `bench-event-${vms}-baseline`),
      };
      const runs = { ours: [] as LoadRun[], base: [] as LoadRun[] };
      // Both at once, under the same load: on a shared machine, CPU time per report drifts with
      // whatever else runs, and rounds taken one after the other caught different moments.
      for (let r = 0; r < 2; r++) {
        const [o, b] = await Promise.all([
          ours(fleets.ours, { ms: ROUND_MS }),
          base(fleets.base, { ms: ROUND_MS }),
        ]);
        runs.ours.push(o);
        runs.base.push(b);
      }
      for (const who of ["ours", "base"] as const)
        measured[who].push({ events: vms / 10, ...combined(runs[who]) });
    }
    return {
      duringEvent: measured.ours,
      baseline: { bundle: baseline, duringEvent: measured.base },
    };
  } finally {
    for (const c of started) await c.stop();
    await azurite.stop();
  }
}

/** Runs of one fleet as one: totals summed, rates and per-report figures over the totals. */
function combined(runs: LoadRun[]): LoadRun {
  const reports = runs.reduce((t, x) => t + x.reports, 0);
  const seconds = runs.reduce((t, x) => t + x.seconds, 0);
  const per = (f: (x: LoadRun) => number) =>
    round(runs.reduce((t, x) => t + f(x) * x.reports, 0) / Math.max(1, reports), 3);
  const ops = {
    reads: per((x) => x.opsPerReport.reads),
    queries: per((x) => x.opsPerReport.queries),
    writes: per((x) => x.opsPerReport.writes),
  };
  return {
    vms: runs[0]?.vms ?? 0,
    concurrency: CONCURRENCY,
    seconds: round(seconds, 2),
    reports,
    errors: runs.reduce((t, x) => t + x.errors, 0),
    reportsPerSecond: round(reports / seconds, 1),
    opsPerReport: { ...ops, total: round(ops.reads + ops.queries + ops.writes, 3) },
    coordinatorCpuMsPerReport: per((x) => x.coordinatorCpuMsPerReport),
  };
}

export async function measureThroughput(
  vmCounts: number[],
  opts: { metrics?: boolean } = {},
): Promise<ThroughputResult> {
  const azurite = await startAzurite();
  try {
    const local = await startBenchCoordinator(azurite.connectionString, {
      metrics: opts.metrics ?? false,
    });
    try {
      const load: Load = (fleet, limit) => loadRun(local, fleet, limit);

      // The machine is shared, so raw upserts and coordinator reports alternate in short rounds
      // (raw, reports, raw, reports, ..., raw) and each round's reports are compared with the raw
      // speed just before and just after it; the figure is the median round.
      // Both sides warm first (fresh processes: JIT, Azurite's tables, connection pools).
      await warmUp(load);
      await rawUpserts(azurite.connectionString, 200);
      const raws: number[] = [];
      const runs: ThroughputResult["runs"] = [];
      let firstReports: LoadRun | undefined;
      // Every VM of both fleets registers first (its first report writes its member row).
      const fleets = vmCounts.map((n) => new EventFleet("vm-", n, 4, `bench-${n}`));
      for (const fleet of fleets) {
        const first = await load(fleet, { total: fleet.size });
        if (fleet.size === Math.max(...vmCounts)) firstReports = first;
      }
      // Rounds interleave the fleet sizes, so whatever drifts on the machine touches both alike.
      const rounds = fleets.map((): Round[] => []);
      let rawBefore = await rawUpserts(azurite.connectionString, Math.max(...vmCounts));
      raws.push(round(rawBefore, 1));
      for (let r = 0; r < ROUNDS; r++) {
        for (const [k, fleet] of fleets.entries()) {
          const run = await load(fleet, { ms: ROUND_MS });
          const rawAfter = await rawUpserts(azurite.connectionString, fleet.size);
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
          vms: fleet.size,
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

      const duringEvent = await measureDuringEvent(load);

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
