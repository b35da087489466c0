#!/usr/bin/env node
// npm run bench: the relay's idle benchmark (its own process, 60 s), then every system figure
// (bench/main.ts, bundled with esbuild: workspace packages from their sources, other packages
// left to node_modules). Writes bench/results/latest.{json,md} and relay-idle.{json,md}.
// Options: USAGE below (--help prints it; an unknown option is refused with exit 2 before anything runs).
// A figure that fails (a premise not met, or the system failing) does not end the run: the others
// are measured and written, latest.md says which failed and why, and the exit code is then 1.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { workspaceSources } from "../scripts/esbuild/workspace-sources.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The figures by their --only name (bench/main.ts figureList), with the letter of each. */
const FIGURES = [
  ["events", "(a)(b) drain end → StartRequests, first sight → Started"],
  ["throughput", "(c)(d) reports per second, table operations per report"],
  ["convergence", "(e)(f) budget hand-off, convergence after a restart"],
  ["cost", "(g) cost per VM-month"],
  ["partitions", "(h) table partition load at 10,000 VMs"],
  ["scale", "(i) one cluster of 10,000 VMs"],
  ["control-plane", "(j) control-plane approval"],
  ["attestation", "(k) attestation"],
  ["cold-start", "(l) cold start of the packaged Function app"],
  ["agentless", "(m) agentless: Event Grid delivery → ARM approval"],
  ["delivery", "(n) an Event Grid delivery against the events stored"],
  ["during-event", "(d) heartbeats during events"],
];
const USAGE = `npm run bench [-- OPTIONS]

Measures every figure on this machine (a full run takes about ten minutes) and writes
bench/results/latest.{json,md}; exits 0 when every figure measured, 1 when some did not
(latest.md says which and why), 2 on a bad option.

Figures (--only NAME):
${FIGURES.map(([id, title]) => `  ${id.padEnd(15)} ${title}`).join("\n")}
  (e) the status API at scale runs before them (bench/statusMain.ts), the relay's idle cost first,
  and in a full run the Spot fast path (Preempt with 30, 10 and 5 s notices) after (e).

Options:
  --only NAME           measure this figure alone, merged into the last latest.json
                        (add --skip-idle --skip-status to skip those two)
  --skip-idle           keep the last relay-idle.json (no 60 s idle run)
  --idle-seconds N      how long the relay's idle run lasts (default 60)
  --skip-status         keep the last status-scale.json
  --status-only         only the status API at scale (bench/results/status-scale.json)
  --skip-spot           keep the last spot-drain.json (a full run measures it, about 3 min)
  --spot-only           only the Spot fast path on Kubernetes (bench/results/spot-drain.{json,md})
  --telemetry-overhead  only figure (c), with metrics off and on (bench/results/telemetry-overhead.json)
  -h, --help            this text`;
{
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      options: {
        only: { type: "string" },
        "skip-idle": { type: "boolean" },
        "idle-seconds": { type: "string" },
        "skip-status": { type: "boolean" },
        "status-only": { type: "boolean" },
        "spot-only": { type: "boolean" },
        "skip-spot": { type: "boolean" },
        "telemetry-overhead": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    console.error(`bench: ${e.message}\n\n${USAGE}`);
    process.exit(2);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const refuse = (why) => {
    console.error(`bench: ${why} (npm run bench -- --help)`);
    process.exit(2);
  };
  if (values.only !== undefined && !FIGURES.some(([id]) => id === values.only))
    refuse(`--only ${values.only}: one of ${FIGURES.map(([id]) => id).join(", ")}`);
  const idleSeconds = values["idle-seconds"];
  if (idleSeconds !== undefined && !(Number(idleSeconds) > 0))
    refuse(`--idle-seconds needs a positive number, got "${idleSeconds}"`);
}
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

/**
 * The benchmarks run here in processes of their own, as bench/figures.ts records a figure: how
 * long it took, how idle the machine was meanwhile, whether it measured. bench/main.ts adds these
 * records to latest.json (BENCH_EARLIER_FIGURES).
 */
const records = [];
const idleMs = () => cpus().reduce((t, c) => t + c.times.idle, 0);
/** `measured`: exit statuses that mean it measured (relay/bench/idle.mjs: 3 = a target missed). */
const timed = (id, title, run, measured = [0]) => {
  const t0 = performance.now();
  const idle0 = idleMs();
  const load0 = loadavg()[0] ?? 0;
  const status = run();
  const elapsed = performance.now() - t0;
  const share = (idleMs() - idle0) / (cpus().length * elapsed);
  const ok = measured.includes(status);
  records.push({
    id,
    title,
    status: ok ? "measured" : "failed",
    seconds: Math.round(elapsed / 100) / 10,
    machine: {
      cores: cpus().length,
      idleShare: Math.round(Math.min(1, Math.max(0, share)) * 1000) / 1000,
      // The child blocks this process (spawnSync): the load average at both ends, not sampled.
      loadAverage: Math.round((((loadavg()[0] ?? 0) + load0) / 2) * 100) / 100,
    },
    problems: ok ? [] : [`failed: exited with ${status} (its output above says why)`],
    date: new Date().toISOString(),
  });
  if (!ok) console.error(`bench: ${title} exited with ${status}`);
  return status;
};

const idle = join(root, "relay", "bench", "idle.mjs");
const statusOnly = process.argv.includes("--status-only");
const spotOnly = process.argv.includes("--spot-only");
if (!statusOnly && !spotOnly && !process.argv.includes("--skip-idle") && existsSync(idle)) {
  timed(
    "relay-idle",
    "relay idle cost",
    () =>
      spawnSync(process.execPath, [idle, "--seconds", arg("--idle-seconds", "60")], {
        cwd: root,
        stdio: "inherit",
      }).status ?? 1,
    [0, 3],
  );
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
  target: "node22",
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
  const s = timed(
    "status-scale",
    "(e) the status API at scale",
    () =>
      spawnSync(process.execPath, ["--enable-source-maps", join(outDir, "statusMain.cjs"), root], {
        cwd: root,
        stdio: "inherit",
      }).status ?? 1,
  );
  if (statusOnly) process.exit(s);
}
// The Spot fast path (a Preempt's 30, 10 and 5 s notices) in a full run, in its own process.
if (!telemetryOnly && !process.argv.includes("--only") && !process.argv.includes("--skip-spot"))
  timed(
    "spot-drain",
    "Spot fast path on Kubernetes (Preempt, 30/10/5 s notices)",
    () =>
      spawnSync(process.execPath, ["--enable-source-maps", join(outDir, "spotMain.cjs"), root], {
        cwd: root,
        stdio: "inherit",
      }).status ?? 1,
  );
const passOn = telemetryOnly
  ? ["--telemetry-overhead"]
  : process.argv.includes("--only")
    ? ["--only", arg("--only", "")]
    : [];
const main = (args) =>
  spawnSync(process.execPath, ["--enable-source-maps", outfile, root, ...args], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, BENCH_EARLIER_FIGURES: JSON.stringify(records) },
  }).status ?? 1;
// bench/main.ts exits 0 when every figure measured, 3 when it wrote its results with some figure
// failed or partial (latest.md says which and why), anything else when it wrote nothing.
const PARTIAL = 3;
const wrote = (status) => status === 0 || status === PARTIAL;
const statuses = [main(passOn)];
// A full run measures (k) last, in a process of its own (bench/main.ts says why), merged into
// the results the full run wrote; (m) likewise (its simulated Entra is another fabric's).
if (passOn.length === 0 && wrote(statuses[0]))
  for (const figure of ["attestation", "agentless"]) statuses.push(main(["--only", figure]));
const failed = records.filter((r) => r.status !== "measured").length;
if (statuses.every((s) => s === 0) && failed === 0) process.exit(0);
console.error(
  statuses.every(wrote)
    ? "bench: some figures did not measure all they should: bench/results/latest.md says which and why"
    : `bench: the run failed (exit ${statuses.join(", ")}); what it measured before is not written`,
);
process.exit(1);
