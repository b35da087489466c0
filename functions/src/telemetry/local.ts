import type { Attributes } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";

export interface Point {
  name: string;
  attributes: Attributes;
  /** Counters and gauges: the value; histograms: the count of recordings. */
  value: number;
  /** Histograms only. */
  sum?: number;
}

/**
 * The real OTel SDK with an in-memory exporter, read back on demand (the export timer is an
 * hour, so nothing is exported behind a reader's back): what the coordinator recorded, as flat
 * points. For `npm start` (which prints them) and the tests; in Azure, app.ts registers Azure
 * Monitor instead.
 */
export function localMetrics() {
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    meter: provider.getMeter("quiesce.coordinator"),
    async points(): Promise<Point[]> {
      const { resourceMetrics } = await reader.collect();
      const out: Point[] = [];
      for (const scope of resourceMetrics.scopeMetrics)
        for (const m of scope.metrics)
          for (const dp of m.dataPoints as Array<{ attributes: Attributes; value: unknown }>) {
            const v = dp.value;
            if (typeof v === "number")
              out.push({ name: m.descriptor.name, attributes: dp.attributes, value: v });
            else {
              const h = v as { count: number; sum?: number };
              out.push({
                name: m.descriptor.name,
                attributes: dp.attributes,
                value: h.count,
                ...(h.sum !== undefined ? { sum: h.sum } : {}),
              });
            }
          }
      return out;
    },
    shutdown: () => provider.shutdown(),
  };
}

export const pointsNamed = (points: Point[], name: string, attrs: Attributes = {}) =>
  points.filter(
    (p) => p.name === name && Object.entries(attrs).every(([k, v]) => p.attributes[k] === v),
  );
