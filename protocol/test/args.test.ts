import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { argProblem } from "../src";

const OPTIONS = { name: { type: "string" }, json: { type: "boolean", short: "j" } } as const;
const problem = (args: string[], allowPositionals = false) =>
  argProblem(
    parseArgs({ args, options: OPTIONS, strict: false, tokens: true }).tokens,
    OPTIONS,
    allowPositionals,
  );

describe("argProblem", () => {
  it("passes declared options, short ones, inline values and values starting with one dash", () => {
    expect(problem(["--name", "x", "-j"])).toBeUndefined();
    expect(problem(["--name=--x"])).toBeUndefined();
    expect(problem(["--name", "-1 rollout"])).toBeUndefined();
    expect(problem(["a", "b"], true)).toBeUndefined();
  });

  it("names the first unknown argument: an undeclared option, a switch with a value, a positional", () => {
    expect(problem(["--colour", "x"])).toEqual({ kind: "unknown", arg: "--colour" });
    expect(problem(["-x"])).toEqual({ kind: "unknown", arg: "-x" });
    expect(problem(["--json=1"])).toEqual({ kind: "unknown", arg: "--json=1" });
    expect(problem(["stray"])).toEqual({ kind: "unknown", arg: "stray" });
  });

  it("names an option missing its value, or followed by another option", () => {
    expect(problem(["--name"])).toEqual({ kind: "needsValue", option: "--name" });
    expect(problem(["--name", "--json"])).toEqual({ kind: "needsValue", option: "--name" });
  });
});
