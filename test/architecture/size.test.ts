import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, trackedFiles } from "./sourceGraph";

/**
 * Small files with one reason to change: 300 lines per file, or 1,500 per folder. A file may pass
 * 300 lines where its folder (the files directly in it) stays within 1,500: splitting a file only
 * to obey a line count is what once created a circle between two files (the circle test in
 * imports.test.ts keeps any split honest).
 */
const FILE_LIMIT = 300;
const FOLDER_LIMIT = 1_500;

describe("source files", () => {
  it(`are at most ${FILE_LIMIT} lines each, or their folder at most ${FOLDER_LIMIT}, tests and benchmarks included`, () => {
    const files = trackedFiles("*.ts", "*.mts", "*.mjs", "*.js", "*.css").map((f) => ({
      f,
      lines: readFileSync(join(REPO, f), "utf8").split("\n").length - 1,
    }));
    const folders = new Map<string, number>();
    for (const { f, lines } of files)
      folders.set(dirname(f), (folders.get(dirname(f)) ?? 0) + lines);
    const over = files
      .filter(({ f, lines }) => lines > FILE_LIMIT && (folders.get(dirname(f)) ?? 0) > FOLDER_LIMIT)
      .map(({ f, lines }) => `${f}: ${lines} lines, in a folder of ${folders.get(dirname(f))}`);
    expect(over).toEqual([]);
  });
});
