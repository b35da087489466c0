import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { E2E_SECONDS } from "../e2e/support/expectedSeconds";

/**
 * The fresh-clone order of the end-to-end files (vitest.sequencer.ts) knows every file: a new file
 * it does not list would start first whatever its length, a removed one would linger.
 */
describe("the end-to-end files' expected seconds", () => {
  it("list every test/e2e file, and nothing else", () => {
    const root = resolve(__dirname, "..", "..");
    const files = readdirSync(join(root, "test", "e2e"))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `test/e2e/${f}`)
      .sort();
    expect(Object.keys(E2E_SECONDS).sort()).toEqual(files);
  });
});
