import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * `npm run bench -- --help` answers at once instead of starting a ten-minute run, and an option
 * it does not know is refused before anything runs (exit 2), not ignored.
 */

const root = resolve(__dirname, "..");
const bench = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, "bench", "run.mjs"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 20_000,
  });

/** The --only names bench/main.ts knows, read from its figure list. */
const figureIds = () =>
  [...readFileSync(join(root, "bench", "main.ts"), "utf8").matchAll(/figure\(\s*"([a-z-]+)"/g)].map(
    (m) => m[1],
  );

describe("bench/run.mjs", () => {
  it("prints its usage, every figure bench/main.ts knows included, and exits 0 on --help and -h", () => {
    for (const flag of ["--help", "-h"]) {
      const r = bench(flag);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^npm run bench/);
      for (const option of ["--only NAME", "--skip-idle", "--status-only", "--spot-only"])
        expect(r.stdout).toContain(option);
      const ids = figureIds();
      expect(ids.length).toBeGreaterThan(10);
      for (const id of ids) expect(r.stdout).toMatch(new RegExp(`^  ${id} +\\(`, "m"));
    }
  });

  it("refuses an unknown option, a figure it does not have and a bad number with exit 2", () => {
    const unknown = bench("--bogus");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--bogus'");
    const figure = bench("--only", "nope");
    expect(figure.status).toBe(2);
    expect(figure.stderr).toContain("--only nope: one of events,");
    const seconds = bench("--idle-seconds", "soon");
    expect(seconds.status).toBe(2);
    expect(seconds.stderr).toContain('--idle-seconds needs a positive number, got "soon"');
  });
});
