import { z } from "zod";

/**
 * The cost model: measured quantities per report (bench/cost.ts) times the prices of
 * bench/prices.json. Pure: nothing here measures or reads a file.
 */

const Verified = { source: z.string().min(1), verified: z.boolean() };
export const Prices = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  currency: z.literal("USD"),
  functionsFlexConsumptionOnDemand: z.object({
    perMillionExecutions: z.number().nonnegative(),
    perGbSecond: z.number().nonnegative(),
    freeExecutionsPerMonth: z.number().nonnegative(),
    freeGbSecondsPerMonth: z.number().nonnegative(),
    ...Verified,
  }),
  tableStorage: z.object({ perTenThousandTransactions: z.number().nonnegative(), ...Verified }),
  logAnalytics: z.object({
    perGbIngested: z.number().nonnegative(),
    freeGbPerMonth: z.number().nonnegative(),
    ...Verified,
  }),
  limits: z.object({
    tablePartitionEntitiesPerSecond: z.number().positive(),
    storageAccountTransactionsPerSecond: z.number().positive(),
    ...Verified,
  }),
});
export type Prices = z.infer<typeof Prices>;

/** A 30-day month, as Azure's monthly estimates count it. */
export const SECONDS_PER_MONTH = 30 * 86_400;

/** What one kind of report costs the coordinator, as measured. */
export interface ReportCosts {
  /** Wall time of one report, median over sequential reports on loopback (the estimate of its execution time). */
  wallMs: number;
  /** Table operations per report (reads + queries + writes). */
  tableOps: number;
  /** Bytes of Application Insights telemetry per successful report. */
  telemetryBytes: number;
}

export interface CostLine {
  item: string;
  quantity: string;
  usd: number;
}

export interface CostTable {
  lines: CostLine[];
  totalUsd: number;
}

const usd = (v: number) => v;

/**
 * Per VM and month while idle: `reportsPerMonth` heartbeats, each one execution billed for its
 * wall time at the instance memory. No free grant is subtracted (it is per subscription, shown
 * apart) and concurrency is not counted (reports that overlap on one instance share its billed
 * time), so this is an upper bound for the compute.
 */
export function perVmMonth(
  reportsPerMonth: number,
  r: ReportCosts,
  instanceMemoryMB: number,
  prices: Prices,
): CostTable {
  const f = prices.functionsFlexConsumptionOnDemand;
  const gbSeconds = reportsPerMonth * (r.wallMs / 1000) * (instanceMemoryMB / 1024);
  const ops = reportsPerMonth * r.tableOps;
  const gb = (reportsPerMonth * r.telemetryBytes) / 1024 ** 3;
  const lines: CostLine[] = [
    {
      item: "Functions executions",
      quantity: `${fmt(reportsPerMonth)} reports`,
      usd: usd((reportsPerMonth * f.perMillionExecutions) / 1e6),
    },
    {
      item: "Functions execution time",
      quantity: `${fmt(reportsPerMonth)} × ${r.wallMs} ms × ${instanceMemoryMB / 1024} GB = ${fmt(gbSeconds, 2)} GB-s`,
      usd: usd(gbSeconds * f.perGbSecond),
    },
    {
      item: "Table transactions",
      quantity: `${fmt(reportsPerMonth)} × ${r.tableOps} = ${fmt(ops, 0)}`,
      usd: usd((ops * prices.tableStorage.perTenThousandTransactions) / 1e4),
    },
    {
      item: "Application Insights (per-report telemetry)",
      quantity: `${fmt(reportsPerMonth)} × ${r.telemetryBytes} B`,
      usd: usd(gb * prices.logAnalytics.perGbIngested),
    },
  ];
  return { lines, totalUsd: lines.reduce((t, l) => t + l.usd, 0) };
}

export function fmt(v: number, digits = 0): string {
  return v.toLocaleString("en-US", { maximumFractionDigits: digits });
}

export function dollars(v: number): string {
  if (v === 0) return "$0";
  if (v < 0.0001) return "< $0.0001";
  return `$${v < 0.1 ? v.toFixed(4) : v.toFixed(2)}`;
}
