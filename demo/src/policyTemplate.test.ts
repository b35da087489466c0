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
      "a.2.b: unknown placeholder {{nope}} (known: {{fabricUrl}}, {{resourceGroupId}}, {{hookServiceUrl}})",
    ]);
    expect(placeholderProblems(undefined)).toEqual([]);
  });
});
