import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseScenario, ScenarioError } from "./scenario";

const dir = join(__dirname, "..", "scenarios");

describe("scenario files", () => {
  it("parses every scenario shipped in demo/scenarios", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) {
      const s = parseScenario(JSON.parse(readFileSync(join(dir, f), "utf8")), f);
      expect(s.steps.length).toBeGreaterThan(0);
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
});
