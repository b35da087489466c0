import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { startLocalCoordinator } from "@quiesce/functions";
import { startLagMonitor } from "../lag";
import type { ChildSettings, FromChild, ToChild } from "./messages";

/**
 * One coordinator instance as its own process, as a Functions host runs it: the local host (the
 * Function app's handlers behind node:http) against the Azurite its parent runs, so that a test
 * can SIGKILL it and a benchmark's load generator does not share its event loop. Forked by
 * ./index.ts (bundled: bench/run.mjs, or coordinatorBundle()), it talks over the IPC channel:
 * sends {ready, url, ...keys}; answers "stats" with the store's operation counters, its CPU time
 * and memory, "metrics" with the size of an export of its metrics (with metrics on), {lag: [from,
 * to]} with the scheduling delay it measured in that interval (../lag); "stop" ends it (SIGTERM too).
 */

async function main() {
  const raw = process.env.QUIESCE_TESTKIT_COORDINATOR;
  if (!raw || !process.send) throw new Error("forked by @quiesce/testkit/coordinator");
  const o = JSON.parse(raw) as ChildSettings;
  const lag = o.measureLag ? startLagMonitor() : undefined;
  // Metrics on: the real OTel SDK records every metric and exports every 5 s (to memory), as
  // Azure Monitor's exporter would; off, the coordinator's meter is the API's no-op one.
  const exporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 5_000 });
  const meter = o.metrics
    ? new MeterProvider({ readers: [reader] }).getMeter("quiesce.coordinator")
    : undefined;
  const local = await startLocalCoordinator({
    port: o.port,
    connectionString: o.connectionString,
    ...(o.keysDir ? { keysDir: o.keysDir } : {}),
    settings: o.settings,
    sweepIntervalMs: o.sweepIntervalMs,
    ...(meter ? { meter } : {}),
  });
  const send = (m: FromChild) => process.send?.(m);
  process.on("message", (m: ToChild) => {
    // "gc-stats" (with --expose-gc) first collects garbage: what is left is what is retained.
    if (m === "gc-stats") (globalThis as { gc?: () => void }).gc?.();
    if (m === "stats" || m === "gc-stats") {
      const cpu = process.cpuUsage();
      send({
        stats: local.coordinator.deps.store.stats(),
        cpuMs: (cpu.user + cpu.system) / 1000,
        rssBytes: process.memoryUsage().rss,
        heapUsedBytes: process.memoryUsage().heapUsed,
      });
    }
    // The size of what was exported since the last "metrics", as JSON (a stand-in for the
    // Azure Monitor exporter's envelopes, which cannot run here).
    if (m === "metrics")
      void reader.forceFlush().then(() => {
        const exported = exporter.getMetrics();
        exporter.reset();
        const points = exported
          .flatMap((r) => r.scopeMetrics)
          .flatMap((s) => s.metrics)
          .reduce((n, x) => n + x.dataPoints.length, 0);
        send({ metrics: { bytes: JSON.stringify(exported).length, points } });
      });
    if (typeof m === "object") send({ lag: { ms: lag?.between(...m.lag) ?? 0 } });
    if (m === "stop") void local.stop().then(() => process.exit(0));
  });
  process.on("SIGTERM", () => void local.stop().then(() => process.exit(0)));
  send({
    ready: true,
    url: local.url,
    relayKey: local.relayKey,
    operatorKey: local.operatorKey,
    readerKey: local.readerKey,
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
