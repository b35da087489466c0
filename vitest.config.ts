import { resolve } from "node:path";
import { defineConfig } from "vitest/config";
import { E2eLongestFirst } from "./vitest.sequencer";

// The workspace packages from their sources, subpaths included ("@quiesce/protocol/imds"
// -> protocol/src/imds/index.ts), as scripts/esbuild/workspace-sources.mjs does for bundles.
//
// Three projects. "unit" (unit, integration against Azurite, infra, architecture, contracts, a
// fuzz sample) runs three files at a time (vitest's default on 2 cores is one: cores - 1; many
// files wait on Azurite or timers: 2 at a time left a third of the 2 cores idle, 4 imported the
// graph once more per worker and was slower: 185, 160, 171 s measured side by side) without
// isolating files from each other: each worker keeps its module graph, so a file does not
// evaluate zod schemas, the Azure SDKs and the Kubernetes client again (import was 186 s of a
// 280 s phase; 165 s without). The files that need a process of their own run in "isolated":
// @azure/identity keeps one MSAL token cache per process (a token a simulator minted for an
// earlier file would be handed to this file's simulator, which refuses it), vi.mock needs a fresh
// module graph, and the secrets test must prove what it proves whatever else ran first. Files
// of both share their process's Azurite (@quiesce/testkit/azurite's useAzurite: emptied for each
// file), rather than starting one each.
// "e2e" (test/e2e: whole clusters of real processes, bounded in wall time) runs after every other
// file has finished (a later groupOrder), three files at a time: they wait on intervals, but
// their processes keep about 80 % of 2 cores busy at three; four left the phase no shorter on a
// loaded machine (150 s against 143 s) and starved the chaos file into a timeout in one fresh
// clone run of two. Each file has a process of its own: in a shared one
// the control-plane files fail once one follows another (@azure/identity's one MSAL token cache
// per process, as above), which a worker that keeps its modules made depend on the order. The
// wall-time bounds add the scheduling delay measured while they ran (@quiesce/testkit/lag), for
// other work on the machine.
// They start longest first, in a fresh clone too (vitest.sequencer.ts).
// Transformed modules are kept on disk (node_modules/.experimental-vitest-cache; keyed by each
// file's content and id, the Vite configuration and coverage; on by default from vitest 5): each
// project has a Vite server of its own, so without it "isolated" and "e2e" transformed again what
// "unit" had, and every run transformed everything (36 s of the main process's CPU per run).
const ISOLATED = [
  "fabric-simulator/src/arm/identity.test.ts",
  "test/integration/attestation/**/*.test.ts",
  "test/infra/host-bindings.test.ts",
  "test/integration/secretsNeverLeave.test.ts",
];
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
    experimental: { fsModuleCache: true },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { sequencer: E2eLongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          exclude: [...exclude, "test/e2e/**", ...ISOLATED],
          maxWorkers: 3,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: ISOLATED,
          exclude,
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          exclude,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          // A guard against hangs, not a claim: each test bounds what it waits for itself.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
