import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// The workspace packages from their sources, subpaths included ("@quiesce/protocol/imds"
// -> protocol/src/imds/index.ts), as scripts/esbuild/workspace-sources.mjs does for bundles.
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
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
