import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// The workspace packages from their sources, subpaths included ("@quiesce/protocol/imds"
// -> protocol/src/imds/index.ts), as scripts/esbuild/workspace-sources.mjs does for bundles.
//
// Two projects. "e2e" (test/e2e: whole clusters of real processes, bounded in wall time) runs its
// files one at a time, after every other file has finished (vitest runs a project without file
// parallelism in its own group, last): on any number of cores nothing else competes with a
// cluster for the machine. The wall-time bounds themselves add the scheduling delay measured
// while they ran (@quiesce/testkit/lag), for what is left: other work on the machine.
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
        test: { name: "unit", include: ["**/*.test.ts"], exclude: [...exclude, "test/e2e/**"] },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          exclude,
          fileParallelism: false,
          // A guard against hangs, not a claim: each test bounds what it waits for itself.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
