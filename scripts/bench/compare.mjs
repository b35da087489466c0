#!/usr/bin/env node
// A restructuring must not change behaviour or speed: this runs the same benchmark figures on a
// baseline checkout and on this one, alternating (base, head, head, base, ...) so that drift on a
// shared machine weighs on both alike, and prints the figures side by side.
//   node scripts/bench/compare.mjs --base ../baseline [--rounds 2] [--figures all | events,convergence,throughput]
// The baseline is any checkout of Quiesce with node_modules installed (e.g. a `git worktree` of
// the previous commit). Each side writes only its own bench/results; this checkout's results are
// restored afterwards, so a comparison never rewrites the published figures.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const head = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: {
    base: { type: "string" },
    rounds: { type: "string", default: "2" },
    figures: { type: "string", default: "all" },
  },
});
if (!values.base) {
  console.error("usage: compare.mjs --base <baseline checkout> [--rounds N] [--figures ...]");
  process.exit(2);
}
const base = resolve(values.base);
const figures = values.figures.split(",");
const rounds = Number(values.rounds);

/** What each figure runs and what it reads back from that checkout's bench/results. */
const FIGURES = {
  // Every system figure in one bench run: (a)-(i) (the relay's idle and the status figures skipped).
  all: {
    args: [],
    read: (dir) => ({
      ...FIGURES.events.read(dir),
      ...FIGURES.convergence.read(dir),
      ...throughputFigures(json(dir, "latest.json").throughput),
    }),
  },
  events: {
    args: ["--only", "events"],
    read: (dir) => {
      const a = json(dir, "latest.json").events.a;
      return {
        "(a) drain end -> StartRequests median ms": a.delayMs.median,
        "(a) p90 ms": a.delayMs.p90,
      };
    },
  },
  convergence: {
    args: ["--only", "convergence"],
    read: (dir) => {
      const c = json(dir, "latest.json").convergence;
      return {
        "(e) hand-off p90 / active interval": c.handOff.ratio.p90,
        "(f) restart -> StartRequests max ms": c.restart.answeredToStartRequestsMs.max,
      };
    },
  },
  throughput: {
    args: ["--telemetry-overhead"],
    read: (dir) => {
      // Metrics off only (the runs with metrics on measure telemetry, not this comparison).
      const off = json(dir, "telemetry-overhead.json").runs.filter((x) => !x.metrics);
      const out = {};
      for (const vms of new Set(off.map((r) => r.vms))) {
        const runs = off.filter((r) => r.vms === vms);
        out[`(c) ${vms} VMs ratio to raw upserts`] = runs.map((r) => r.ratioToRawUpserts);
        out[`(c) ${vms} VMs coordinator CPU ms/report`] = runs.map(
          (r) => r.coordinatorCpuMsPerReport,
        );
      }
      return out;
    },
  },
};

/** (c) per fleet size, and (d) the table operations of a heartbeat during events (rows read). */
function throughputFigures(t) {
  const out = {};
  for (const r of t.runs) {
    out[`(c) ${r.vms} VMs ratio to raw upserts`] = r.ratioToRawUpserts;
    out[`(c) ${r.vms} VMs coordinator CPU ms/report`] = r.coordinatorCpuMsPerReport;
  }
  for (const r of t.duringEvent) {
    out[`(d) during ${r.events} events, ${r.vms} VMs: table ops/report`] = r.opsPerReport.total;
    out[`(d) during ${r.events} events, ${r.vms} VMs: coordinator CPU ms/report`] =
      r.coordinatorCpuMsPerReport;
  }
  return out;
}

function json(dir, file) {
  return JSON.parse(readFileSync(join(dir, "bench", "results", file), "utf8"));
}

// This checkout's published results (and the cost table a full run writes into docs/deploy.md)
// are put back at the end.
const keep = [
  "bench/results/latest.json",
  "bench/results/latest.md",
  "bench/results/telemetry-overhead.json",
  "docs/deploy.md",
];
const saved = join(head, "node_modules", ".cache", "quiesce-bench-compare");
mkdirSync(saved, { recursive: true });
const savedAs = (f) => join(saved, f.replaceAll("/", "__"));
for (const f of keep) if (existsSync(join(head, f))) copyFileSync(join(head, f), savedAs(f));

const rows = [];
for (let round = 0; round < rounds; round++) {
  const order =
    round % 2 === 0
      ? [
          ["base", base],
          ["head", head],
        ]
      : [
          ["head", head],
          ["base", base],
        ];
  for (const name of figures) {
    const fig = FIGURES[name];
    if (!fig) throw new Error(`unknown figure ${name}: ${Object.keys(FIGURES).join(", ")}`);
    for (const [side, dir] of order) {
      process.stderr.write(`compare: round ${round + 1}, ${name}, ${side}\n`);
      const r = spawnSync(
        process.execPath,
        [join(dir, "bench", "run.mjs"), "--skip-idle", "--skip-status", ...fig.args],
        { cwd: dir, stdio: ["ignore", "ignore", "inherit"] },
      );
      if (r.status !== 0) throw new Error(`${side} ${name} exited with ${r.status}`);
      rows.push({ round: round + 1, side, figure: name, values: fig.read(dir) });
    }
  }
}
for (const f of keep) if (existsSync(savedAs(f))) copyFileSync(savedAs(f), join(head, f));

const out = { date: new Date().toISOString(), base, rows };
const file = join(head, "bench", "results", "compare.json");
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
for (const r of rows) console.log(`${r.round} ${r.side.padEnd(4)} ${JSON.stringify(r.values)}`);
console.log(`written to ${file}`);
