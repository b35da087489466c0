import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, trackedFiles } from "./sourceGraph";

/**
 * One round runner (functions/src/rounds/runner.ts) commits every decision: it reads what the
 * round's read set names, decides, commits under ETags with retry, and derives the effects of
 * every round. A second place that commits would be a round whose effects nobody derives (the
 * control plane's approvals were, until the runner).
 */
const RUNNER = "functions/src/rounds/runner.ts";
const COMMITS = /\bcommitDecision\(|\bstore\.commit\(/;

describe("rounds", () => {
  it("are committed by the round runner alone", () => {
    const others = trackedFiles("functions/src/*.ts")
      .filter(
        (f) => !f.endsWith(".test.ts") && f !== RUNNER && !f.startsWith("functions/src/store/"),
      )
      .filter((f) => COMMITS.test(readFileSync(join(REPO, f), "utf8")));
    expect(others).toEqual([]);
    expect(COMMITS.test(readFileSync(join(REPO, RUNNER), "utf8"))).toBe(true);
  });
});
