#!/usr/bin/env node
// npm run bench: the relay's idle benchmark (its own process, 60 s), then every system figure
// (bench/main.ts, bundled with esbuild: workspace packages from their sources, other packages
// left to node_modules). Writes bench/results/latest.{json,md} and relay-idle.{json,md}.
// Options: --skip-idle (keep the last relay-idle.json), --idle-seconds N, --skip-status (keep the
// last status-scale.json), --status-only (only the status API at scale: bench/statusMain.ts).
// --only convergence | events | cost | partitions | scale | control-plane | attestation | agentless |
// cold-start | during-event | delivery (measure (e)(f), (a)(b), (g), (h), (i), (j), (k), (l), (d)'s
// heartbeats during events or (n) alone, merged into the last latest.json; with --skip-idle --skip-status).
// --spot-only: the Spot fast path on Kubernetes alone (bench/spotMain.ts, bench/results/spot-drain.{json,md}).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { workspaceSources } from "../scripts/esbuild/workspace-sources.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

const idle = join(root, "relay", "bench", "idle.mjs");
const statusOnly = process.argv.includes("--status-only");
const spotOnly = process.argv.includes("--spot-only");
if (!statusOnly && !spotOnly && !process.argv.includes("--skip-idle") && existsSync(idle)) {
  const r = spawnSync(process.execPath, [idle, "--seconds", arg("--idle-seconds", "60")], {
    cwd: root,
    stdio: "inherit",
  });
  if (r.status !== 0) console.error(`bench: relay idle benchmark exited with ${r.status}`);
}

// Inside node_modules so that the bundle's bare imports resolve to the repository's packages.
const outDir = join(root, "node_modules", ".cache", "quiesce-bench");
mkdirSync(outDir, { recursive: true });
const outfile = join(outDir, "main.cjs");
// main.ts and statusMain.ts fork coordinator.cjs (the testkit's coordinator process) from the
// same folder (bench/coordinator.ts).
await build({
  entryPoints: [
    { in: join(root, "bench", "main.ts"), out: "main" },
    { in: join(root, "bench", "statusMain.ts"), out: "statusMain" },
    { in: join(root, "bench", "spotMain.ts"), out: "spotMain" },
    { in: join(root, "testkit", "src", "coordinator", "main.ts"), out: "coordinator" },
  ],
  outdir: outDir,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: "inline",
  plugins: [workspaceSources({ externalPackages: true })],
  logLevel: "error",
});
if (spotOnly) {
  const s = spawnSync(
    process.execPath,
    ["--enable-source-maps", join(outDir, "spotMain.cjs"), root],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  process.exit(s.status ?? 1);
}
// --telemetry-overhead runs only figure (c), with metrics off and on (bench/main.ts).
const telemetryOnly = process.argv.includes("--telemetry-overhead");
if (!telemetryOnly && (statusOnly || !process.argv.includes("--skip-status"))) {
  const s = spawnSync(
    process.execPath,
    ["--enable-source-maps", join(outDir, "statusMain.cjs"), root],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  if (s.status !== 0) console.error(`bench: status benchmark exited with ${s.status}`);
  if (statusOnly) process.exit(s.status ?? 1);
}
const passOn = telemetryOnly
  ? ["--telemetry-overhead"]
  : process.argv.includes("--only")
    ? ["--only", arg("--only", "")]
    : [];
const main = (args) =>
  spawnSync(process.execPath, ["--enable-source-maps", outfile, root, ...args], {
    cwd: root,
    stdio: "inherit",
  }).status ?? 1;
const status = main(passOn);
// A full run measures (k) last, in a process of its own (bench/main.ts says why), merged into
// the results the full run wrote.
// (m) likewise (its simulated Entra is another fabric's).
const attested = status === 0 && passOn.length === 0 ? main(["--only", "attestation"]) : status;
process.exit(attested === 0 && passOn.length === 0 ? main(["--only", "agentless"]) : attested);
