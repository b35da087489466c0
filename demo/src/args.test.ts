import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDemoArgs, USAGE } from "./args";

const defaults = {
  scenario: "/demo/scenarios/default.json",
  scenarios: "/demo/scenarios",
  stay: true,
};

describe("demo arguments", () => {
  it("defaults to the default scenario on port 7071, staying when interactive", () => {
    expect(parseDemoArgs([], defaults)).toEqual({
      scenario: defaults.scenario,
      port: 7071,
      stay: true,
    });
  });

  it("reads every option; of --exit and --stay the last one wins", () => {
    expect(
      parseDemoArgs(
        ["--scenario", "s.json", "--time-scale", "120", "--port", "0", "--exit"],
        defaults,
      ),
    ).toEqual({ scenario: resolve("s.json"), timeScale: 120, port: 0, stay: false });
    // A name is a shipped scenario; anything with a dot or a slash is a file.
    expect(parseDemoArgs(["--scenario", "control-plane"], defaults)).toMatchObject({
      scenario: "/demo/scenarios/control-plane.json",
    });
    expect(parseDemoArgs(["--scenario", "./control-plane"], defaults)).toMatchObject({
      scenario: resolve("control-plane"),
    });
    expect(parseDemoArgs(["--exit", "--stay"], { ...defaults, stay: false })).toMatchObject({
      stay: true,
    });
    expect(parseDemoArgs(["--stay", "--exit"], defaults)).toMatchObject({ stay: false });
    expect(parseDemoArgs(["-h"], defaults)).toBe(USAGE);
    // Help first, whatever else is on the line: asking never starts the demo.
    expect(parseDemoArgs(["--port", "x", "--help"], defaults)).toBe(USAGE);
  });

  it("refuses unknown arguments, missing values and numbers that are not", () => {
    expect(() => parseDemoArgs(["--bogus"], defaults)).toThrow(/^unknown argument --bogus\n/);
    expect(() => parseDemoArgs(["stray"], defaults)).toThrow(/^unknown argument stray/);
    expect(() => parseDemoArgs(["--port"], defaults)).toThrow("--port needs a value");
    expect(() => parseDemoArgs(["--port", "-1"], defaults)).toThrow(
      '--port needs a non-negative number, got "-1"',
    );
    expect(() => parseDemoArgs(["--port", "70000"], defaults)).toThrow(
      '--port needs a port number (0-65535), got "70000"',
    );
    expect(() => parseDemoArgs(["--time-scale", "fast"], defaults)).toThrow(/--time-scale/);
  });
});
