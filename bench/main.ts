import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { measureAgentless } from "./agentless";
import { measureAttestation } from "./attestation";
import type { BenchResults } from "./benchResults";
import { measureColdStart } from "./coldStart";
import { measureControlPlane } from "./controlPlane";
import { measureConvergence } from "./convergence";
import { type CostResult, measureCost, renderCost } from "./cost";
import { measureDelivery } from "./delivery";
import { measureEvents } from "./events";
import { measurePartitions } from "./partitions";
import { renderMarkdown } from "./render";
import { LatestResults, readResults, StatusScaleFile } from "./resultsFile";
import { measureScale } from "./scale";
import { measureDuringEventAlone, measureThroughput } from "./throughput";

/**
 * `npm run bench`: every figure of the issue measured side by side in one run on this machine,
 * written to bench/results/latest.json and latest.md (with the relay's idle figures, measured
 * just before by relay/bench/idle.mjs, when present).
 */

async function main() {
  const root = resolve(process.argv[2] ?? process.cwd());
  const out = join(root, "bench", "results");
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
  if (process.argv.includes("--telemetry-overhead")) return telemetryOverhead(out, log);

  const measureAndLogConvergence = async () => {
    log("(e)(f) budget hand-off and convergence after a coordinator restart...");
    const r = await measureConvergence(8);
    log(`(e) hand-off p90 ${r.handOff.ratio.p90} of the active interval`);
    log(`(f) restart -> StartRequests max ${r.restart.answeredToStartRequestsMs.max} ms`);
    return r;
  };

  const measureAndLogCost = async () => {
    log("(g) cost per VM-month from measured reports...");
    const c = await measureCost(root);
    log(`(g) idle ${c.idleVmMonth.totalUsd.toFixed(4)} USD per VM-month`);
    writeDeployCostTable(root, c);
    return c;
  };

  const measureAndLogPartitions = async () => {
    log("(h) partition load at 10,000 VMs in one cluster during events (simulated time)...");
    const p = await measurePartitions();
    log(`(h) busiest partition at ${p.worstShare} of its target`);
    return p;
  };

  const measureAndLogScale = async () => {
    log("(i) 10,000 VMs over three coordinator processes behind a round-robin front...");
    const r = await measureScale();
    log(
      `(i) ${r.load.reportsPerSecond} reports/s, approvers per event ${r.approvers.perEvent.join(",")}, lag p90 ${r.approvalLagMs.p90} ms`,
    );
    return r;
  };

  const measureAndLogControlPlane = () => {
    log("(j) control-plane approval: fallback due -> ARM acknowledge at the fabric...");
    return measureControlPlane(
      Number(process.env.BENCH_CONTROL_PLANE_ROUNDS ?? 10),
      (process.env.BENCH_CONTROL_PLANE_SWEEPS ?? "10,1").split(",").map(Number),
      log,
    );
  };

  const measureAndLogAttestation = async () => {
    log("(k) attestation: the cost of a report, bound and binding...");
    const r = await measureAttestation();
    log(
      `(k) heartbeat off ${r.off.cpuMsPerReport} ms CPU, bound ${r.bound.cpuMsPerReport} ms; first proof ${r.firstProof.ms.median} ms`,
    );
    return r;
  };

  const measureAndLogDelivery = () => {
    log("(n) an Event Grid delivery of 1,000 events at 1,000 and 100,000 stored events...");
    const stored = (process.env.BENCH_DELIVERY_STORED ?? "1000,100000").split(",").map(Number);
    return measureDelivery(stored, Number(process.env.BENCH_DELIVERY_BATCH ?? 1000), log);
  };

  const measureAndLogColdStart = async () => {
    log("(l) cold start of the packaged Function app, fresh processes...");
    const r = await measureColdStart(root, Number(process.env.BENCH_COLD_START_RUNS ?? 5), log);
    log(
      `(l) load ${r.load.ms.median} ms, ${r.load.rssMB.median} MB; first report ${r.firstReport.ms.median} ms (${r.firstReportWithAzureMonitor.ms.median} ms with Azure Monitor)`,
    );
    return r;
  };

  // `--only <figure>`: measure that figure alone and put it into the last full results.
  const alone = {
    events: async () => ({ events: await measureEvents(Number(process.env.BENCH_EVENTS ?? 10)) }),
    convergence: async () => ({ convergence: await measureAndLogConvergence() }),
    cost: async () => ({ cost: await measureAndLogCost() }),
    partitions: async () => ({ partitions: await measureAndLogPartitions() }),
    scale: async () => ({ scale: await measureAndLogScale() }),
    "control-plane": async () => ({ controlPlane: await measureAndLogControlPlane() }),
    attestation: async () => ({ attestation: await measureAndLogAttestation() }),
    agentless: async () => ({
      agentless: await measureAgentless(Number(process.env.BENCH_AGENTLESS_ROUNDS ?? 10), log),
    }),
    "cold-start": async () => ({ coldStart: await measureAndLogColdStart() }),
    delivery: async () => ({ delivery: await measureAndLogDelivery() }),
    // (d)'s heartbeats during events, into the last run's throughput section.
    "during-event": async (last: z.output<typeof LatestResults>) => {
      log("(d) heartbeats during events...");
      const { duringEvent, baseline } = await measureDuringEventAlone();
      const sides = [
        ["this", duringEvent],
        ["baseline", baseline?.duringEvent ?? []],
      ] as const;
      for (const [who, runs] of sides)
        for (const x of runs)
          log(
            `(d) ${who} ${x.vms} VMs: ${x.coordinatorCpuMsPerReport} CPU ms/report, ${x.opsPerReport.total} ops, ${x.reportsPerSecond} reports/s`,
          );
      const withBaseline = baseline ? { duringEventBaseline: baseline } : {};
      return { throughput: { ...last.throughput, duringEvent, ...withBaseline } };
    },
  } as const;
  const latestFile = join(out, "latest.json");
  const only = process.argv.includes("--only")
    ? process.argv[process.argv.indexOf("--only") + 1]
    : undefined;
  if (only !== undefined && !(only in alone))
    throw new Error(`--only ${only}: one of ${Object.keys(alone).join(", ")}`);
  const previous = only ? readResults(latestFile, LatestResults) : null;
  if (only && previous) {
    const merged = { ...previous, ...(await alone[only as keyof typeof alone](previous)) };
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
  const cost = await measureAndLogCost();
  const partitions = await measureAndLogPartitions();
  const scale = await measureAndLogScale();
  const controlPlane = await measureAndLogControlPlane();
  // (k) runs next, in its own process (bench/run.mjs): @azure/identity's managed-identity token
  // cache is per process, and a token of (j)'s simulated Entra was offered to (k)'s ARM (401).
  const coldStart = await measureAndLogColdStart();
  const delivery = await measureAndLogDelivery();

  const idleFile = join(out, "relay-idle.json");
  const relayIdle = readResults(idleFile, z.unknown());
  const statusFile = join(out, "status-scale.json");
  const statusScale = readResults(statusFile, StatusScaleFile);
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
    cost,
    partitions,
    scale,
    controlPlane,
    coldStart,
    delivery,
    relayIdle,
    statusScale,
  };
  writeFileSync(join(out, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(out, "latest.md"), renderMarkdown(results));
  process.stdout.write(renderMarkdown(results));
}

/** docs/deploy.md shows the cost tables of the last run, between these markers. */
function writeDeployCostTable(root: string, c: CostResult): void {
  const file = join(root, "docs", "deploy.md");
  const begin = "<!-- bench:cost:begin (generated by npm run bench, bench/cost.ts) -->";
  const end = "<!-- bench:cost:end -->";
  const doc = readFileSync(file, "utf8");
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) return;
  const body = [`Measured ${new Date().toISOString().slice(0, 10)}.`, "", ...renderCost(c)];
  writeFileSync(file, `${doc.slice(0, from + begin.length)}\n${body.join("\n")}\n${doc.slice(to)}`);
}

/**
 * `node bench/run.mjs --skip-idle --telemetry-overhead`: figure (c) without metrics (the API's
 * no-op meter) and with them (the real OTel SDK recording and exporting), in one run, in the
 * order off, on, on, off; each is compared with raw Azurite upserts measured around it, so drift on the
 * shared machine shows in the ratio rather than as a difference. Written to
 * bench/results/telemetry-overhead.json.
 */
async function telemetryOverhead(out: string, log: (s: string) => void) {
  const runs = [];
  // Off, on, on, off: whatever drifts on the shared machine over the run weighs on both alike.
  for (const metrics of [false, true, true, false]) {
    log(`(c) with metrics ${metrics ? "on (OTel SDK)" : "off (no-op meter)"}...`);
    const t = await measureThroughput([100, 1000], { metrics });
    for (const r of t.runs) {
      log(
        `(c) metrics ${metrics ? "on " : "off"} ${r.vms} VMs: ${r.reportsPerSecond} reports/s, ratio ${r.ratioToRawUpserts}, ${r.coordinatorCpuMsPerReport} CPU ms/report`,
      );
      runs.push({
        metrics,
        vms: r.vms,
        reportsPerSecond: r.reportsPerSecond,
        ratioToRawUpserts: r.ratioToRawUpserts,
        coordinatorCpuMsPerReport: r.coordinatorCpuMsPerReport,
      });
    }
  }
  writeFileSync(
    join(out, "telemetry-overhead.json"),
    `${JSON.stringify({ date: new Date().toISOString(), runs }, null, 2)}\n`,
  );
  process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
