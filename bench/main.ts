import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";
import { measureAgentless } from "./agentless";
import { measureAttestation } from "./attestation";
import type { BenchResults } from "./benchResults";
import { measureColdStart } from "./coldStart";
import { controlPlaneProblems, measureControlPlane } from "./controlPlane";
import { convergenceProblems, measureConvergence } from "./convergence";
import { type CostResult, measureCost, renderCost } from "./cost";
import { measureDelivery } from "./delivery";
import { measureEvents } from "./events";
import {
  type Figure,
  FigureRecord,
  mergeRecords,
  notMeasured,
  PARTIAL_EXIT,
  runFigures,
} from "./figures";
import { problemsText } from "./figuresRender";
import { measurePartitions } from "./partitions";
import { check } from "./premise";
import { renderMarkdown } from "./render";
import { LatestResults, readResults, StatusScaleFile } from "./resultsFile";
import { measureScale } from "./scale";
import { measureDuringEventAlone, measureThroughput } from "./throughput";

/**
 * `npm run bench`: every figure of the issue measured side by side in one run on this machine,
 * written to bench/results/latest.json and latest.md (with the relay's idle figures, measured
 * just before by relay/bench/idle.mjs, when present). Each figure runs through runFigures
 * (figures.ts): one that fails is recorded as such with why, and the others are still measured
 * and written. Exits 0 when every figure measured all it should, PARTIAL_EXIT when some did not.
 */

type Log = (s: string) => void;
type Last = z.output<typeof LatestResults> | null;

/** Every figure by its `--only` name; `full` ones run in a full run, in this order. */
function figureList(root: string, log: Log, last: Last) {
  const env = (name: string, fallback: string) => process.env[name] ?? fallback;
  const numbers = (name: string, fallback: string) => env(name, fallback).split(",").map(Number);
  const figure = (
    id: string,
    title: string,
    full: boolean,
    measure: () => Promise<Partial<BenchResults>>,
    problems?: Figure<BenchResults>["problems"],
  ) => ({ id, title, full, measure, ...(problems ? { problems } : {}) });
  return [
    figure("events", "(a)(b) drain end → StartRequests, first sight → Started", true, async () => {
      const events = await measureEvents(Number(env("BENCH_EVENTS", "10")));
      log(`(a) drain end -> StartRequests median ${events.a.delayMs.median} ms`);
      return { events };
    }),
    figure(
      "throughput",
      "(c)(d) reports per second, table operations per report",
      true,
      async () => {
        const throughput = await measureThroughput([100, 1000]);
        for (const r of throughput.runs)
          log(`(c) ${r.vms} VMs: ${r.reportsPerSecond} reports/s, ratio ${r.ratioToRawUpserts}`);
        return { throughput };
      },
    ),
    figure(
      "convergence",
      "(e)(f) budget hand-off, convergence after a restart",
      true,
      async () => {
        const r = await measureConvergence(8);
        log(`(e) hand-off p90 ${r.handOff.ratio.p90} of the active interval`);
        log(`(f) restart -> StartRequests max ${r.restart.answeredToStartRequestsMs.max} ms`);
        return { convergence: r };
      },
      (m) => (m.convergence ? convergenceProblems(m.convergence) : []),
    ),
    figure("cost", "(g) cost per VM-month", true, async () => {
      const c = await measureCost(root);
      log(`(g) idle ${c.idleVmMonth.totalUsd.toFixed(4)} USD per VM-month`);
      writeDeployCostTable(root, c);
      return { cost: c };
    }),
    figure("partitions", "(h) table partition load at 10,000 VMs", true, async () => {
      const p = await measurePartitions();
      log(`(h) busiest partition at ${p.worstShare} of its target`);
      return { partitions: p };
    }),
    figure("scale", "(i) one cluster of 10,000 VMs", true, async () => {
      const r = await measureScale();
      log(
        `(i) ${r.load.reportsPerSecond} reports/s, approvers per event ${r.approvers.perEvent.join(",")}, lag p90 ${r.approvalLagMs.p90} ms`,
      );
      return { scale: r };
    }),
    figure(
      "control-plane",
      "(j) control-plane approval",
      true,
      async () => ({
        controlPlane: await measureControlPlane(
          Number(env("BENCH_CONTROL_PLANE_ROUNDS", "10")),
          numbers("BENCH_CONTROL_PLANE_SWEEPS", "10,1"),
          log,
        ),
      }),
      (m) => (m.controlPlane ? controlPlaneProblems(m.controlPlane) : []),
    ),
    // (k) and (m) run after a full run in processes of their own (bench/run.mjs):
    // @azure/identity's managed-identity token cache is per process, and a token of (j)'s
    // simulated Entra was offered to (k)'s ARM (401).
    figure("attestation", "(k) attestation", false, async () => {
      const r = await measureAttestation();
      log(
        `(k) heartbeat off ${r.off.cpuMsPerReport} ms CPU, bound ${r.bound.cpuMsPerReport} ms; first proof ${r.firstProof.ms.median} ms`,
      );
      return { attestation: r };
    }),
    figure("cold-start", "(l) cold start of the packaged Function app", true, async () => {
      const r = await measureColdStart(root, Number(env("BENCH_COLD_START_RUNS", "5")), log);
      log(
        `(l) load ${r.load.ms.median} ms, ${r.load.rssMB.median} MB; first report ${r.firstReport.ms.median} ms (${r.firstReportWithAzureMonitor.ms.median} ms with Azure Monitor)`,
      );
      return { coldStart: r };
    }),
    figure("agentless", "(m) agentless: Event Grid delivery → ARM approval", false, async () => ({
      agentless: await measureAgentless(Number(env("BENCH_AGENTLESS_ROUNDS", "10")), log),
    })),
    figure("delivery", "(n) an Event Grid delivery against the events stored", true, async () => ({
      delivery: await measureDelivery(
        numbers("BENCH_DELIVERY_STORED", "1000,100000"),
        Number(env("BENCH_DELIVERY_BATCH", "1000")),
        log,
      ),
    })),
    // (d)'s heartbeats during events, into the last run's throughput section.
    figure("during-event", "(d) heartbeats during events", false, async () => {
      const throughput = last?.throughput;
      check("an earlier run's (c)(d) to add to", throughput !== undefined, "latest.json has none");
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
      return {
        throughput: {
          ...(throughput as NonNullable<typeof throughput>),
          duringEvent,
          ...withBaseline,
        },
      };
    }),
  ];
}

/** Records of what bench/run.mjs ran itself before (relay idle, status at scale), with their load. */
function earlierRecords(log: Log): FigureRecord[] {
  const text = process.env.BENCH_EARLIER_FIGURES;
  if (!text) return [];
  const r = parseJsonWith(z.array(FigureRecord), text);
  if (!r.ok) log(`BENCH_EARLIER_FIGURES ignored: ${r.error}`);
  return r.ok ? r.value : [];
}

function write(out: string, results: BenchResults, log: Log): void {
  writeFileSync(join(out, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(out, "latest.md"), renderMarkdown(results));
  process.stdout.write(renderMarkdown(results));
  // Said again last, where a reader of the output looks: which figures failed, and why.
  for (const f of notMeasured(results.figures ?? []))
    process.stdout.write(`bench: ${f.status.toUpperCase()}: ${f.title}: ${problemsText(f)}\n`);
  log(`results in ${join(out, "latest.md")}`);
}

async function main(): Promise<number> {
  const root = resolve(process.argv[2] ?? process.cwd());
  const out = join(root, "bench", "results");
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const log: Log = (s) => process.stderr.write(`bench: ${s}\n`);
  if (process.argv.includes("--telemetry-overhead")) {
    await telemetryOverhead(out, log);
    return 0;
  }

  const latestFile = join(out, "latest.json");
  const only = process.argv.includes("--only")
    ? process.argv[process.argv.indexOf("--only") + 1]
    : undefined;
  const previous = only ? readResults(latestFile, LatestResults) : null;
  const all = figureList(root, log, previous);
  const chosen = all.find((f) => f.id === only);
  if (only !== undefined && !chosen)
    throw new Error(`--only ${only}: one of ${all.map((f) => f.id).join(", ")}`);
  // `--only <figure>`: measure that figure alone and put it into the last full results (when
  // there are none, the full run below).
  if (chosen && previous) {
    const { measured, records } = await runFigures([chosen], log);
    write(
      out,
      {
        ...previous,
        ...measured,
        figures: mergeRecords(previous.figures ?? [], [...earlierRecords(log), ...records]),
      },
      log,
    );
    return notMeasured(records).length > 0 ? PARTIAL_EXIT : 0;
  }

  const { measured, records } = await runFigures(
    all.filter((f) => f.full),
    log,
  );
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
    ...measured,
    figures: [...earlierRecords(log), ...records],
    relayIdle: readResults(join(out, "relay-idle.json"), z.unknown()),
    statusScale: readResults(join(out, "status-scale.json"), StatusScaleFile),
  };
  write(out, results, log);
  return notMeasured(results.figures ?? []).length > 0 ? PARTIAL_EXIT : 0;
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
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
