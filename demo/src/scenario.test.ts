import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PolicySet } from "@quiesce/protocol/policy";
import { describe, expect, it } from "vitest";
import { fillPolicy } from "./policyTemplate";
import { parseScenario, ScenarioError } from "./scenario";

const dir = join(__dirname, "..", "scenarios");

describe("scenario files", () => {
  it("parses every scenario shipped in demo/scenarios", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) {
      const s = parseScenario(JSON.parse(readFileSync(join(dir, f), "utf8")), f);
      expect(s.steps.length).toBeGreaterThan(0);
      // Its policy, once the fabric's URLs are in, is one the coordinator takes.
      const policy = fillPolicy(s.policy ?? {}, {
        fabricUrl: "http://127.0.0.1:9",
        resourceGroupId: "/subscriptions/s/resourceGroups/rg",
        hookServiceUrl: "http://127.0.0.1:10",
      });
      expect(PolicySet.safeParse(policy).error).toBeUndefined();
    }
  });

  it("names the file and the field of a malformed step", () => {
    const bad = {
      name: "x",
      steps: [{ at: 0, action: "schedule", name: "a", event: { eventType: "Re boot" } }],
    };
    expect(() => parseScenario(bad, "bad.json")).toThrow(/bad\.json: steps\.0\.event\.eventType/);
  });

  it("refuses a step that names an event not scheduled before it", () => {
    const s = { name: "x", steps: [{ at: 5, action: "cancel", name: "ghost" }] };
    expect(() => parseScenario(s, "s.json")).toThrow(ScenarioError);
    expect(() => parseScenario(s, "s.json")).toThrow(/names "ghost", not scheduled before it/);
  });

  it("refuses two events with the same name", () => {
    const ev = { eventType: "Freeze", resources: ["web-0"] };
    const s = {
      name: "x",
      steps: [
        { at: 0, action: "schedule", name: "a", event: ev },
        { at: 1, action: "schedule", name: "a", event: ev },
      ],
    };
    expect(() => parseScenario(s, "s.json")).toThrow(/used twice/);
  });

  it("reads the operator and control-plane steps, and the control-plane switch", () => {
    const s = parseScenario(
      {
        name: "x",
        controlPlane: true,
        steps: [
          {
            at: 0,
            action: "schedule",
            name: "a",
            event: { eventType: "Freeze", resources: ["web-0"] },
          },
          { at: 0, action: "hold", name: "a", reason: "change freeze" },
          { at: 5, action: "release", name: "a" },
          { at: 5, action: "health", endpoint: "app", status: 503 },
          { at: 6, action: "fireAlert", rule: "high-error-rate" },
          { at: 7, action: "resolveAlert", rule: "high-error-rate" },
        ],
      },
      "s.json",
    );
    expect(s.controlPlane).toBe(true);
    expect(s.steps.map((x) => x.action)).toEqual([
      "schedule",
      "hold",
      "release",
      "health",
      "fireAlert",
      "resolveAlert",
    ]);
    expect(parseScenario({ name: "x", steps: s.steps }, "s.json").controlPlane).toBe(false);
  });

  it("refuses a hold of an event not scheduled before it, and a health status that is not one", () => {
    const hold = { name: "x", steps: [{ at: 0, action: "hold", name: "ghost" }] };
    expect(() => parseScenario(hold, "s.json")).toThrow(/step "hold" at 0 s names "ghost"/);
    const health = { name: "x", steps: [{ at: 0, action: "health", endpoint: "app", status: 99 }] };
    expect(() => parseScenario(health, "s.json")).toThrow(/s\.json: steps\.0\.status/);
    const rule = { name: "x", steps: [{ at: 0, action: "fireAlert", rule: "a/b" }] };
    expect(() => parseScenario(rule, "s.json")).toThrow(/steps\.0\.rule/);
  });

  it("reads a step's premise and a story's expectation, and refuses a premise on an unknown event", () => {
    const schedule = {
      at: 0,
      action: "schedule",
      name: "a",
      event: { eventType: "Freeze", resources: ["db-0"] },
      expect: { approvedBy: "control-plane" },
    };
    const stop = { at: 5, action: "stopRelay", vm: "db-0", when: { drained: "a" } };
    const s = parseScenario({ name: "x", steps: [schedule, stop] }, "s.json");
    expect(s.steps[1]).toEqual(stop);
    expect(s.premiseTimeoutSeconds).toBe(30);
    const ghost = { name: "x", steps: [{ ...stop, when: { drained: "ghost" } }] };
    expect(() => parseScenario(ghost, "s.json")).toThrow(
      /step "stopRelay" at 5 s waits for "ghost" drained, not scheduled before it/,
    );
    const back = { at: 9, action: "startRelay", vm: "db-0", when: { approved: "a" } };
    const hold = { at: 0, action: "hold", name: "a", whileDraining: true };
    const read = parseScenario({ name: "x", steps: [schedule, hold, back] }, "s.json");
    expect(read.steps.slice(1)).toEqual([hold, back]);
    expect(() =>
      parseScenario({ name: "x", steps: [{ ...back, when: { approved: "ghost" } }] }, "s.json"),
    ).toThrow(/step "startRelay" at 9 s waits for "ghost" approved, not scheduled before it/);
    expect(() =>
      parseScenario(
        { name: "x", steps: [schedule, { ...back, when: { started: "a" } }] },
        "s.json",
      ),
    ).toThrow(/s\.json: steps\.1/);
  });

  it("refuses a policy placeholder it cannot fill, naming where it is", () => {
    const s = {
      name: "x",
      policy: {
        default: { gates: [{ kind: "http", name: "g", url: "{{fabricURL}}/health/app" }] },
      },
      steps: [{ at: 0, action: "startRelay", vm: "web-0" }],
    };
    expect(() => parseScenario(s, "s.json")).toThrow(
      /s\.json: policy: default\.gates\.0\.url: unknown placeholder \{\{fabricURL\}\}/,
    );
  });
});
