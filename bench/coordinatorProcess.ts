import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { startLocalCoordinator } from "@quiesce/functions";

/**
 * The coordinator for (c) and (d), in its own process as the Functions host is: the load
 * generator must not share its event loop. Talks to the bench over the fork IPC channel:
 * sends {ready, url, relayKey, operatorKey}; answers "stats" with the store's operation counters,
 * its CPU time and resident memory, "metrics" with the bytes of an export of its metrics (with
 * BENCH_METRICS=1); "stop" ends it.
 */

async function main() {
  const connectionString = process.env.BENCH_CONNECTION_STRING;
  if (!connectionString || !process.send) throw new Error("run by bench/throughput.ts (fork)");
  // BENCH_METRICS=1: the real OTel SDK records every metric and exports every 5 s (to memory),
  // as Azure Monitor's exporter would; unset, the coordinator's meter is the API's no-op one.
  const exporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 5_000 });
  const meter =
    process.env.BENCH_METRICS === "1"
      ? new MeterProvider({ readers: [reader] }).getMeter("quiesce.coordinator")
      : undefined;
  const local = await startLocalCoordinator({
    connectionString,
    ...(process.env.BENCH_KEYS_DIR ? { keysDir: process.env.BENCH_KEYS_DIR } : {}),
    sweepIntervalMs: 0,
    ...(meter ? { meter } : {}),
  });
  const send = (m: unknown) => process.send?.(m);
  process.on("message", (m) => {
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
    // "metrics": export now; the size of what was exported since the last "metrics", as JSON (a
    // stand-in for the Azure Monitor exporter's envelopes, which the bench cannot run).
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
    if (m === "stop") void local.stop().then(() => process.exit(0));
  });
  send({ ready: true, url: local.url, relayKey: local.relayKey, operatorKey: local.operatorKey });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
