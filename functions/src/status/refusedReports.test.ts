import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { registerSecrets } from "@quiesce/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { METRICS, Telemetry } from "../telemetry/metrics";
import { RefusedReports, refusedReportsView } from "./refusedReports";

const claim = (vm: string, cluster = "web") => ({ cluster, vm: { name: vm } });
const bad = { status: 401, reason: "invalid key" };

describe("reports refused at authentication, kept per instance", () => {
  afterEach(() => registerSecrets("refused-test", []));

  it("counts per cluster and VM (by its member key), keeping the first and last time and the last reason", () => {
    const r = new RefusedReports(0);
    r.note(claim("Web-9"), bad, 1000);
    r.note(claim("web-9"), { status: 403, reason: "not allowed" }, 2000);
    r.note(claim("web-9", "db"), bad, 3000);
    expect(r.lookup("web")("WEB-9")).toEqual({
      cluster: "web",
      vm: "Web-9",
      count: 2,
      firstAt: 1000,
      lastAt: 2000,
      status: 403,
      reason: "not allowed",
    });
    expect(r.lookup("db")("web-9")?.count).toBe(1);
    expect(r.lookup("web")("web-8")).toBeUndefined();
  });

  it("never holds more than its capacity: the claim refused longest ago is evicted, and counted", () => {
    const r = new RefusedReports(0, 3);
    for (let i = 0; i < 5; i++) r.note(claim(`spray-${i}`), bad, i);
    // spray-2 refused again: now the newest, so spray-3 is the next to go.
    r.note(claim("spray-2"), bad, 10);
    r.note(claim("spray-5"), bad, 11);
    expect(r.all().map((c) => c.vm)).toEqual(["spray-5", "spray-2", "spray-4"]);
    expect(r.evicted).toBe(3);
    const view = refusedReportsView(r, 2);
    expect(view).toMatchObject({ tracked: 3, evicted: 3 });
    expect(view.claims.map((c) => c.vm)).toEqual(["spray-5", "spray-2"]);
  });

  it("shows no secret: reasons and names pass through redact(), and a long reason is cut", () => {
    const secret = "CANARY-refused-0123456789";
    registerSecrets("refused-test", [secret]);
    const r = new RefusedReports(0);
    r.note(claim(`vm-${secret}`), { status: 401, reason: `token ${secret} ${"x".repeat(400)}` }, 1);
    const [c] = r.all();
    expect(JSON.stringify(c)).not.toContain(secret);
    expect(c?.vm).toBe("vm-[REDACTED]");
    expect(c?.reason.startsWith("token [REDACTED] xxx")).toBe(true);
    expect(c?.reason).toHaveLength(200);
  });

  it("counts every refusal in quiesce.reports.refused by status only: a claimed name is no metric attribute", async () => {
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
    const telemetry = new Telemetry(new MeterProvider({ readers: [reader] }).getMeter("test"));
    telemetry.reportRefused(401);
    telemetry.reportRefused(401);
    telemetry.reportRefused(403);
    const { resourceMetrics } = await reader.collect();
    const points = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .filter((m) => m.descriptor.name === METRICS.reportsRefused)
      .flatMap((m) => m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })));
    expect(points).toEqual([
      { attributes: { status: "401" }, value: 2 },
      { attributes: { status: "403" }, value: 1 },
    ]);
  });
});
