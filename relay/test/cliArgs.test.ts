import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../src/cliArgs";

describe("relay arguments", () => {
  it("reads every flag, --config FILE and --config=FILE", () => {
    expect(parseCliArgs([])).toEqual({
      help: false,
      version: false,
      dryRun: false,
      checkConfig: false,
      probe: false,
    });
    expect(parseCliArgs(["--config", "a.json", "--dry-run", "--check-config"])).toEqual({
      help: false,
      version: false,
      dryRun: true,
      checkConfig: true,
      probe: false,
      config: "a.json",
    });
    expect(parseCliArgs(["--config=b.json"]).config).toBe("b.json");
    expect(parseCliArgs(["-h"]).help).toBe(true);
    expect(parseCliArgs(["-v"]).version).toBe(true);
    expect(parseCliArgs(["--probe"]).probe).toBe(true);
  });

  it("refuses unknown arguments and a --config without a file, naming them", () => {
    expect(() => parseCliArgs(["--frobnicate"])).toThrow(
      "unknown argument --frobnicate (see --help)",
    );
    expect(() => parseCliArgs(["extra"])).toThrow("unknown argument extra (see --help)");
    expect(() => parseCliArgs(["--dry-run=yes"])).toThrow(/unknown argument --dry-run=yes/);
    expect(() => parseCliArgs(["--config"])).toThrow("--config needs a file path");
    expect(() => parseCliArgs(["--config", "--dry-run"])).toThrow("--config needs a file path");
  });
});
