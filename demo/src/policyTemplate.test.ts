import { describe, expect, it } from "vitest";
import { fillPolicy, placeholderProblems } from "./policyTemplate";

const values = {
  fabricUrl: "http://127.0.0.1:4000",
  resourceGroupId: "/subscriptions/s/resourceGroups/rg",
  hookServiceUrl: "http://127.0.0.1:4001",
};

describe("policy placeholders", () => {
  it("fills every string, nested in objects and arrays, and leaves the input as it was", () => {
    const policy = {
      default: {
        maxEventsInFlight: 1,
        gates: [
          { kind: "http", name: "app", url: "{{fabricUrl}}/health/app" },
          {
            kind: "alertRule",
            name: "errors",
            alertRuleId: "{{resourceGroupId}}/providers/Microsoft.Insights/metricAlerts/x",
          },
        ],
      },
    };
    const before = JSON.stringify(policy);
    expect(fillPolicy(policy, values)).toEqual({
      default: {
        maxEventsInFlight: 1,
        gates: [
          { kind: "http", name: "app", url: "http://127.0.0.1:4000/health/app" },
          {
            kind: "alertRule",
            name: "errors",
            alertRuleId:
              "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Insights/metricAlerts/x",
          },
        ],
      },
    });
    expect(JSON.stringify(policy)).toBe(before);
  });

  it("names each unknown placeholder with its path; known ones and plain braces pass", () => {
    expect(
      placeholderProblems({ a: ["{{fabricUrl}}", "{x}", { b: "{{nope}} {{resourceGroupId}}" }] }),
    ).toEqual([
      "a.2.b: unknown placeholder {{nope}} (known: {{fabricUrl}}, {{resourceGroupId}}, {{hookServiceUrl}}, {{windowDay:+S}}, {{windowTime:+S}})",
    ]);
    expect(placeholderProblems(undefined)).toEqual([]);
  });

  it("tells a maintenance window relative to the start: the first whole UTC minute that far after it", () => {
    const startedAt = Date.parse("2026-06-07T23:58:30Z"); // a Sunday
    const w = {
      days: ["{{windowDay:+65}}"],
      start: "{{windowTime:+65}}",
      end: "{{windowTime:+900}}",
    };
    expect(fillPolicy(w, { ...values, startedAt })).toEqual({
      days: ["Mon"],
      start: "00:00",
      end: "00:14",
    });
    expect(placeholderProblems(w)).toEqual([]);
  });
});
