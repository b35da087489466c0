import { startAzurite } from "@quiesce/functions";
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
  firstReports: LoadRun;
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
      const load = (fleet: EventFleet, limit: { ms?: number; total?: number }) =>
        loadRun(local, fleet, limit);

      // The machine is shared, so raw upserts and coordinator reports alternate in short rounds
      // (raw, reports, raw, reports, ..., raw) and each round's reports are compared with the raw
      // speed just before and just after it; the figure is the median round.
      // Both sides warm first (fresh processes: JIT, Azurite's tables, connection pools).
      const warm = new EventFleet("warm-", 200, 3, "bench-warm-up");
      await load(warm, { ms: WARMUP_MS });
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

      // (d) during an event: one group of 10 VMs with one Scheduled event, then 100 VMs in ten
      // groups of 10, each group with its own (a report loads every active event of its cluster).
      const duringEvent: DuringEvent[] = [];
      for (const vms of [10, 100]) {
        const fleet = new EventFleet("ev-", vms, 3, `bench-event-${vms}`);
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
