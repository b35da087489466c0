#!/usr/bin/env node
// The `quiesce` command (package.json "bin"). A committed file, not a build output: npm links a
// bin only if its file exists when `npm ci` runs, before anything is built. It runs
// dist/quiesce.cjs, the CLI in one file (scripts/bundle.mjs), which the published package ships.
// In a checkout (the sources are here) it first builds that bundle when it is missing or older
// than a file it was built from (under a second, with the repository's esbuild), so `npx quiesce`
// runs the sources as they are, after `npm ci` alone or a `git pull`.

const { existsSync, readFileSync, statSync } = require("node:fs");
const { join, resolve } = require("node:path");

const cliDir = resolve(__dirname, "..");
const bundle = join(cliDir, "dist", "quiesce.cjs");

/** Missing, unreadable, or a file it was built from has changed since the build started. */
function stale() {
  if (!existsSync(bundle)) return true;
  try {
    const { startedAt, inputs } = JSON.parse(
      readFileSync(join(cliDir, "dist", "quiesce.inputs.json"), "utf8"),
    );
    const repo = resolve(cliDir, "..");
    return inputs.some(
      (f) => !existsSync(join(repo, f)) || statSync(join(repo, f)).mtimeMs >= startedAt,
    );
  } catch {
    return true;
  }
}

if (!existsSync(join(cliDir, "src", "main.ts")) || !stale()) require(bundle);
else
  import("../scripts/bundle.mjs")
    .then((m) => m.bundleCli())
    .then(
      () => require(bundle),
      (e) => {
        process.stderr.write(
          `quiesce: cannot build the CLI from its sources: ${e?.message ?? e}\n`,
        );
        process.exitCode = 1;
      },
    );
