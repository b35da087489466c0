import type { OpCounts } from "@quiesce/functions";

/** What ./index.ts hands the forked ./main.ts (JSON in QUIESCE_TESTKIT_COORDINATOR). */
export interface ChildSettings {
  connectionString: string;
  /** Instances of one deployment share their keys (a folder), as they share the tables. */
  keysDir?: string;
  /** 0: a free port; a restart passes the port it had. */
  port: number;
  /** QUIESCE_* settings (policy...). */
  settings: Record<string, string>;
  /** 0: no sweep (its own table traffic would blur per-report counts). */
  sweepIntervalMs: number;
  /** The real OTel SDK records and exports to memory; off: the API's no-op meter. */
  metrics: boolean;
  /** Measure its own scheduling delay (../lag), for tests that bound wall time. */
  measureLag: boolean;
}

export type ToChild = "stats" | "gc-stats" | "metrics" | "stop" | { lag: [number, number] };

export interface Ready {
  ready: true;
  url: string;
  relayKey: string;
  operatorKey: string;
  readerKey: string;
}

export interface Stats {
  stats: OpCounts;
  cpuMs: number;
  rssBytes: number;
  heapUsedBytes: number;
}

export type FromChild =
  | Ready
  | Stats
  | { metrics: { bytes: number; points: number } }
  | { lag: { ms: number } };
