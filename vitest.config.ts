import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// The workspace packages from their sources, subpaths included ("@quiesce/protocol/imds"
// -> protocol/src/imds/index.ts), as scripts/esbuild/workspace-sources.mjs does for bundles.
//
// Two projects, each two files at a time (vitest's default on 2 cores is one: cores - 1).
// "unit" first. "e2e" (test/e2e: whole clusters of real processes, bounded in wall time) runs
// after every unit file has finished (a later groupOrder), so no unit file competes with a
// cluster for the machine; two clusters at once measured 36 % of 2 cores (mostly waiting on
// intervals), their files as long as run one at a time. The wall-time bounds themselves add the
// scheduling delay measured while they ran (@quiesce/testkit/lag), for other work on the machine.
const exclude = ["**/node_modules/**", "**/dist/**"];
export default defineConfig({
  resolve: {
    alias: [
      {
        find: /^@quiesce\/([a-z-]+)\/([a-z-]+)$/,
        replacement: resolve(__dirname, "$1/src/$2/index.ts"),
      },
      { find: /^@quiesce\/([a-z-]+)$/, replacement: resolve(__dirname, "$1/src/index.ts") },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          exclude: [...exclude, "test/e2e/**"],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          exclude,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          // A guard against hangs, not a claim: each test bounds what it waits for itself.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
