import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { type ConvergenceResult, measureConvergence } from "./convergence";
import { type EventsResult, measureEvents } from "./events";
import { renderMarkdown } from "./render";
import type { StatusScaleResult } from "./statusScale";
import { measureThroughput, type ThroughputResult } from "./throughput";

/**
 * `npm run bench`: every figure of the issue measured side by side in one run on this machine,
 * written to bench/results/latest.json and latest.md (with the relay's idle figures, measured
 * just before by relay/bench/idle.mjs, when present).
 */

export interface BenchResults {
  date: string;
  machine: { cpu: string; cores: number; node: string; platform: string };
  durationSeconds: number;
  events: EventsResult;
  throughput: ThroughputResult;
  /** (e) budget hand-off and (f) convergence after a coordinator restart. */
  convergence?: ConvergenceResult;
  relayIdle: unknown;
  /** bench/results/status-scale.json, measured just before by bench/statusMain.ts. */
  statusScale: StatusScaleResult | null;
}

async function main() {
  const root = resolve(process.argv[2] ?? process.cwd());
  const out = join(root, "bench", "results");
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
  const measureAndLogConvergence = async () => {
    log("(e)(f) budget hand-off and convergence after a coordinator restart...");
    const r = await measureConvergence(8);
    log(`(e) hand-off p90 ${r.handOff.ratio.p90} of the active interval`);
    log(`(f) restart -> StartRequests max ${r.restart.answeredToStartRequestsMs.max} ms`);
    return r;
  };

  // `--only convergence`: measure (e)(f) alone and put them into the last full results.
  const latestFile = join(out, "latest.json");
  if (process.argv.includes("--only") && existsSync(latestFile)) {
    const previous = JSON.parse(readFileSync(latestFile, "utf8")) as BenchResults;
    const merged = { ...previous, convergence: await measureAndLogConvergence() };
    writeFileSync(latestFile, `${JSON.stringify(merged, null, 2)}\n`);
    writeFileSync(join(out, "latest.md"), renderMarkdown(merged));
    process.stdout.write(renderMarkdown(merged));
    return;
  }

  log("(a)(b) 10 events on the local cluster (60 s notice, time scale 1)...");
  const events = await measureEvents(10);
  log(`(a) drain end -> StartRequests median ${events.a.delayMs.median} ms`);
  log("(c)(d) coordinator reports per second vs raw Azurite upserts...");
  const throughput = await measureThroughput([100, 1000]);
  for (const r of throughput.runs)
    log(`(c) ${r.vms} VMs: ${r.reportsPerSecond} reports/s, ratio ${r.ratioToRawUpserts}`);
  const convergence = await measureAndLogConvergence();

  const idleFile = join(out, "relay-idle.json");
  const relayIdle = existsSync(idleFile) ? JSON.parse(readFileSync(idleFile, "utf8")) : null;
  const statusFile = join(out, "status-scale.json");
  const statusScale = existsSync(statusFile) ? JSON.parse(readFileSync(statusFile, "utf8")) : null;
  const cpu = cpus()[0]?.model ?? "unknown";
  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: {
      cpu: cpu.replace(/\s+/g, " ").trim(),
      cores: cpus().length,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    durationSeconds: Math.round((Date.now() - started) / 1000),
    events,
    throughput,
    convergence,
    relayIdle,
    statusScale,
  };
  writeFileSync(join(out, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(out, "latest.md"), renderMarkdown(results));
  process.stdout.write(renderMarkdown(results));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
