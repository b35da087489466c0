import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROUTES } from "@quiesce/functions";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./bicep";

/**
 * Request telemetry would cost more than the coordinator itself: every report is a request row
 * plus "Executing"/"Executed" traces in Application Insights, and idle heartbeats are nearly all
 * reports (docs/deploy.md, cost). host.json keeps only failures of them; the coordinator's own
 * metrics (aggregated, a constant size per export) and Host.Aggregator count the rest.
 */
const host = JSON.parse(readFileSync(join(repoRoot, "functions", "host.json"), "utf8")) as {
  logging: { logLevel: Record<string, string> };
};

describe("functions/host.json telemetry", () => {
  it("sends request rows to Application Insights only for failed executions", () => {
    expect(host.logging.logLevel["Host.Results"]).toBe("Error");
  });

  it("keeps the per-execution traces of relay reports and the sweep out, and names real functions", () => {
    const names = new Set([...ROUTES.map((r) => r.name), "sweep"]);
    for (const fn of ["relayReport", "sweep"]) {
      expect(names.has(fn)).toBe(true);
      expect(host.logging.logLevel[`Function.${fn}`]).toBe("Warning");
    }
  });

  it("keeps Host.Aggregator (execution counts and durations per function, every 30 s) at Information", () => {
    expect(host.logging.logLevel["Host.Aggregator"] ?? host.logging.logLevel.default).toBe(
      "Information",
    );
  });
});
