#!/usr/bin/env node
// Builds the relay for installation on VMs:
//   dist-bundle/quiesce-relay.js          one file, runs with `node`, needs no node_modules
//   dist-bundle/quiesce-relay-linux-x64   (with --sea, on Linux x64) a Node single executable
// Usage: node relay/scripts/bundle.mjs [--sea]
// The VM extension archives are made from these and relay/packaging/ by `npm run package`
// (scripts/package/relay.mjs).
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { relayBuildOptions } from "./build-options.mjs";

const relayDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = resolve(relayDir, "..");
const outDir = join(relayDir, "dist-bundle");
const bundle = join(outDir, "quiesce-relay.js");

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

// cli.ts starts with "#!/usr/bin/env node"; esbuild keeps it, so the file is directly executable.
await build(relayBuildOptions({ outfile: bundle }));
chmodSync(bundle, 0o755);
console.log(`bundle: ${bundle} (${Math.round(statSync(bundle).size / 1024)} KiB)`);

if (process.argv.includes("--sea")) buildSea();

/**
 * Node's single-executable-application support (Node >= 20): a preparation blob of the bundle is
 * injected into a copy of this very `node` binary with postject. The same recipe on Windows with
 * node.exe gives quiesce-relay.exe (see docs/relay.md); it must be built on the target platform.
 */
function buildSea() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    console.log(
      `sea: skipped (this script builds the Linux x64 executable; this is ${process.platform}-${process.arch})`,
    );
    return;
  }
  const config = join(outDir, "sea-config.json");
  // The embedder compiles the main script as-is and, unlike the CLI loader, refuses a hashbang.
  const main = join(outDir, "sea-main.js");
  writeFileSync(main, readFileSync(bundle, "utf8").replace(/^#!.*\n/, ""));
  const blob = join(outDir, "sea-prep.blob");
  const exe = join(outDir, "quiesce-relay-linux-x64");
  writeFileSync(
    config,
    JSON.stringify({
      main,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
    }),
  );
  execFileSync(process.execPath, ["--experimental-sea-config", config], { stdio: "inherit" });
  copyFileSync(process.execPath, exe);
  chmodSync(exe, 0o755);
  const postject = join(repoDir, "node_modules", "postject", "dist", "cli.js");
  execFileSync(
    process.execPath,
    [
      postject,
      exe,
      "NODE_SEA_BLOB",
      blob,
      "--sentinel-fuse",
      "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2",
    ],
    { stdio: "inherit" },
  );
  for (const f of [config, blob, main]) rmSync(f);
  const version = execFileSync(exe, ["--version"], { encoding: "utf8" }).trim();
  console.log(
    `sea: ${exe} (${Math.round(statSync(exe).size / 1024 / 1024)} MiB), --version prints ${version}`,
  );
}
