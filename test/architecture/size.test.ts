import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, trackedFiles } from "./sourceGraph";

/** Small files with one reason to change: no source file over 300 lines, tests included. */
const LIMIT = 300;

describe("source files", () => {
  it(`are at most ${LIMIT} lines each, tests and benchmarks included`, () => {
    const over = trackedFiles("*.ts", "*.mts", "*.mjs", "*.js", "*.css")
      .map((f) => ({ f, lines: readFileSync(join(REPO, f), "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > LIMIT)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    expect(over).toEqual([]);
  });
});
