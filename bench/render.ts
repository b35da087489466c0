import { renderAgentless } from "./agentless";
import { renderAttestation } from "./attestationRender";
import type { BenchResults } from "./benchResults";
import { renderColdStart } from "./coldStartRender";
import { renderControlPlane } from "./controlPlaneRender";
import { renderCost } from "./cost";
import { renderDelivery } from "./delivery";
import { failedRounds, machineNote, renderFigures } from "./figuresRender";
import type { Summary } from "./stats";
import { renderStatusScale } from "./statusScale";

/** bench/results/latest.md: one table per figure, targets beside results. */

const ms = (v: number) => `${Math.round(v)} ms`;
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const verdict = (pass: boolean) => (pass ? "met" : "**missed**");
const range = (s: Summary, f: (v: number) => string) =>
  `${f(s.median)} / ${f(s.p90)} (min ${f(s.min)}, max ${f(s.max)})`;

interface RelayIdle {
  measuredSeconds?: number;
  rssMiB?: { max: number; mean: number };
  rssMB?: { max: number; mean: number };
  cpuPercentOfOneCore?: number;
  imdsPolls?: number;
  targets?: { rssMiB?: number; rssMB?: number; cpuPercentOfOneCore: number };
  artifact?: string;
}

function renderEvents(e: NonNullable<BenchResults["events"]>): string[] {
  return [
    "## (a) Last drain finished → StartRequests at the fabric",
    "",
    `${e.events} Freeze events, each naming 2 of 4 VMs of an availability set (drains ${e.drainSeconds.join(" s and ")} s), ${e.noticeSeconds} s notice, time scale 1, default policy (active report interval ${e.activeReportSeconds} s).`,
    "",
    "| Measure | median / p90 | Target |",
    "| --- | --- | --- |",
    `| Delay | ${range(e.a.delayMs, ms)} | |`,
    `| Delay ÷ active report interval | ${range(e.a.ratio, (v) => v.toFixed(3))} | ≤ ${e.a.target} (${verdict(e.a.pass)}, p90) |`,
    ...(e.a.reportRoundTripMs && e.a.delayToRoundTrip !== undefined
      ? [
          `| Round trip of the report that carried the last drain (drain hook's end logged → StartRequests posted, at the approver) | ${range(e.a.reportRoundTripMs, ms)} | |`,
          `| Median delay ÷ median round trip | ${e.a.delayToRoundTrip} | ≤ ${e.a.roundTripTarget} (${verdict(e.a.delayToRoundTrip <= (e.a.roundTripTarget ?? 2))}) |`,
        ]
      : []),
    "",
    "## (b) First sight → Started, against waiting for NotBefore",
    "",
    "| Measure | median / p90 |",
    "| --- | --- |",
    `| First sight → Started | ${range(e.b.firstSightToStartedMs, ms)} |`,
    `| Share of the notice window saved | ${range(e.b.savedShare, pct)} |`,
    "",
  ];
}

function renderThroughput(t: NonNullable<BenchResults["throughput"]>): string[] {
  return [
    "## (c) Coordinator reports per second against raw Azurite upserts",
    "",
    `Concurrency ${t.concurrency}; raw single-entity \`upsertEntity\` calls and coordinator reports alternate in rounds after a warm-up of both (raw 3 s, 100-VM reports 4 s, raw 3 s, 1,000-VM reports 4 s, ..., raw 3 s; three rounds per fleet size); each round's reports/s is divided by the mean of the raw upserts/s just before and after it, and the table shows the median round. Raw upserts/s measured, in order: ${t.rawUpsertsPerSecond.join(", ")}.`,
    "",
    "| Relays (distinct VMs) | Reports/s | Errors | Raw upserts/s around it | Ratio (median round) | Target | Coordinator CPU per report |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...t.runs.map(
      (x) =>
        `| ${x.vms} | ${x.reportsPerSecond} | ${x.errors} | ${x.rawUpsertsPerSecond} | ${x.ratioToRawUpserts} | ≥ ${x.target} (${verdict(x.pass)}) | ${x.coordinatorCpuMsPerReport} ms |`,
    ),
    "",
    "## (d) Table operations per report",
    "",
    "| Report | Reads | Queries | Writes | Total | Coordinator CPU per report |",
    "| --- | --- | --- | --- | --- | --- |",
    ...[
      ["first report of each relay (registers it)", t.firstReports],
      ...t.runs.map((x) => [`idle heartbeat (${x.vms} VMs)`, x] as const),
      ...t.duringEvent.map(
        (x) =>
          [
            `heartbeat during events (${x.vms} VMs, ${x.events} Scheduled event${x.events > 1 ? "s" : ""}; ${x.reportsPerSecond} reports/s)`,
            x,
          ] as const,
      ),
      // `--only during-event` with BENCH_BASELINE_COORDINATOR: the same load on another build.
      ...(t.duringEventBaseline?.duringEvent ?? []).map(
        (x) =>
          [
            `baseline ${t.duringEventBaseline?.bundle.split("/").pop()}: heartbeat during events (${x.vms} VMs, ${x.events} Scheduled event${x.events > 1 ? "s" : ""}; ${x.reportsPerSecond} reports/s)`,
            x,
          ] as const,
      ),
    ].map(([what, x]) =>
      typeof what === "string" && typeof x === "object"
        ? `| ${what} | ${x.opsPerReport.reads} | ${x.opsPerReport.queries} | ${x.opsPerReport.writes} | ${x.opsPerReport.total} | ${x.coordinatorCpuMsPerReport} ms |`
        : "",
    ),
    "",
  ];
}

export function renderMarkdown(r: BenchResults): string {
  const figures = r.figures ?? [];
  // The machine's load beside each figure's tables: a slow machine is not a slow product.
  const load = (...ids: string[]) => machineNote(figures, ids);
  const lines = [
    "# Benchmark results",
    "",
    `${r.date}, ${r.machine.cpu}, ${r.machine.cores} cores (shared), Node ${r.machine.node}, ${r.machine.platform}; the run took ${r.durationSeconds} s. Run again with \`npm run bench\`; what each figure means: docs/benchmarks.md.`,
    "",
    ...renderFigures(figures),
  ];
  if (r.events) lines.push(...renderEvents(r.events), ...load("events"));
  if (r.throughput)
    lines.push(...renderThroughput(r.throughput), ...load("throughput", "during-event"));
  const cv = r.convergence;
  if (cv) {
    const h = cv.handOff;
    const f = cv.restart;
    lines.push(
      "## (e) Budget hand-off: previous event Completed → next ready event's StartRequests",
      "",
      `${h.rounds} rounds, default policy (active report interval ${cv.activeReportSeconds} s, budget 1); the next event in the same availability set (its relays free the budget) or in another one (its relays report every second while waiting). Measured ${cv.date}.`,
      "",
      "| Measure | median / p90 | Target |",
      "| --- | --- | --- |",
      `| Same availability set | ${range(h.sameGroupMs, ms)} | |`,
      `| Another availability set | ${range(h.otherGroupMs, ms)} | |`,
      `| All ÷ active report interval | ${range(h.ratio, (v) => v.toFixed(3))} | ≤ ${h.target} (${verdict(h.pass)}, p90) |`,
      "",
      "## (f) Convergence after a coordinator restart",
      "",
      `${f.rounds} restarts mid-drain (coordinator down ${range(f.downMs, ms)}, the drains finished meanwhile); from its first answer to StartRequests at the fabric.`,
      "",
      "| Measure | median / p90 | Target |",
      "| --- | --- | --- |",
      `| First answer → StartRequests | ${range(f.answeredToStartRequestsMs, ms)} | |`,
      `| ÷ active report interval | ${range(f.ratio, (v) => v.toFixed(3))} | ≤ ${f.target} (${verdict(f.pass)}, max) |`,
      "",
      ...failedRounds(cv.failedRounds ?? []),
      ...load("convergence"),
    );
  }
  if (r.partitions) {
    const p = r.partitions;
    lines.push(
      `## (h) Table partition load at ${p.vms.toLocaleString("en-US")} VMs in one cluster`,
      "",
      `${p.vms} VMs in ${p.groups} placement groups of ${p.vms / p.groups}, their reports spread over ${p.instances ?? 1} Function instance${(p.instances ?? 1) === 1 ? "" : "s"} (each with its own caches); each event names ${p.affectedPerEvent} VMs of its group and is seen by all of it; ${p.simulatedSeconds} s of simulated time with every relay at the cadence its answers ask for and the sweep every 10 s. Entities per second per partition key (a point read or write is one, a query as many as it returns) against Table Storage's ${p.targetEntitiesPerSecond} per partition (target: the busiest at most ${p.limit * 100} % in every scenario, the wave included: ${verdict(p.pass)}).`,
      "",
      "| Scenario | Reports/s | Busiest partitions (entities/s, share of the target) |",
      "| --- | --- | --- |",
      ...p.scenarios.map(
        (s) =>
          `| ${s.name} | ${s.reportsPerSecond} | ${s.busiest
            .slice(0, 3)
            .map(
              (b) =>
                `${b.table} \`${b.partition.replaceAll("|", "\\|")}\`: ${b.entitiesPerSecond} (${pct(b.shareOfTarget)})`,
            )
            .join("; ")} |`,
      ),
      "",
      ...load("partitions"),
    );
  }
  if (r.scale) {
    const x = r.scale;
    lines.push(
      x.clusters === 1 ? "## (i) One cluster of 10,000 VMs" : "## (i) 10,000 VMs in one deployment",
      "",
      x.clusters === 1
        ? `${x.vms} relays' reports over real HTTP, one cluster, ${x.processes} coordinator processes on one Azurite behind a round-robin front; ${x.events} events run their whole life at once in ${x.events} groups of the cluster (each seen by ${x.groupSize ?? 10} VMs, naming 3; their relays report every ${x.eventReportMs ?? 250} ms; the cluster's budget allows ${x.events} in flight) while idle heartbeats rotate over the fleet${x.idlePerSecond ? ` at ${x.idlePerSecond} per second` : " from 24 workers"}.`
        : `${x.vms} relays' reports over real HTTP, ${x.clusters} clusters, ${x.processes} coordinator processes on one Azurite behind a round-robin front; ${x.events} events run their whole life in ${x.events} clusters (each seen by 10 VMs, naming 3; their relays report every 250 ms) while idle heartbeats rotate over the fleet from 24 workers.`,
      "",
      "| Measure | Result | Target |",
      "| --- | --- | --- |",
      `| Registration (first reports, each writes a member row) | ${x.registration.reportsPerSecond} reports/s (${x.registration.seconds} s) | |`,
      `| Reports/s during the events, all processes | ${x.load.reportsPerSecond} (${x.load.reports} in ${x.load.seconds} s; answers other than 200, retried by relays: ${x.load.errors}${
        x.load.errors > 0
          ? ` (${Object.entries(x.load.errorStatuses ?? {})
              .map(([k, v]) => `${v} × ${k}`)
              .join(", ")})`
          : ""
      }) | |`,
      `| Reports/s per process | ${x.load.perProcess.map((p) => p.reportsPerSecond).join(" / ")} (CPU ${x.load.perProcess.map((p) => p.cpuMsPerReport).join(" / ")} ms per report) | |`,
      ...(x.machine
        ? [
            `| CPU headroom during the events (the machine: coordinators, Azurite, load generator) | ${Math.round(x.machine.idleShare * 100)} % of ${x.machine.cores} cores idle | |`,
          ]
        : []),
      `| Member rows stored | ${x.members.stored} of ${x.members.expected} | all (${verdict(x.members.stored === x.members.expected)}) |`,
      `| Approvers per event | ${x.approvers.perEvent.join(", ")} | exactly one (${verdict(x.approvers.exactlyOne)}) |`,
      `| Events Completed, drains and recovers stored | ${x.completed} of ${x.events}, ${x.drainsAndRecoversStored ? "all stored" : "**some missing**"} | all (${verdict(x.completed === x.events && x.drainsAndRecoversStored)}) |`,
      `| Approval lag (last drain report sent → approve directive) | ${range(x.approvalLagMs, ms)} | |`,
      `| Lag ÷ 5 s active interval | ${range(x.lagRatio, (v) => v.toFixed(3))} | ≤ ${x.target} (${verdict(x.lagRatio.p90 <= x.target)}, p90) |`,
      "",
      ...load("scale"),
    );
  }
  if (r.controlPlane) lines.push(...renderControlPlane(r.controlPlane), ...load("control-plane"));
  if (r.attestation) lines.push(...renderAttestation(r.attestation), ...load("attestation"));
  if (r.agentless) lines.push(...renderAgentless(r.agentless), ...load("agentless"));
  if (r.delivery) lines.push(...renderDelivery(r.delivery), "", ...load("delivery"));
  if (r.coldStart) lines.push(...renderColdStart(r.coldStart), ...load("cold-start"));
  if (r.cost)
    lines.push(
      "## (g) Cost per VM-month, from measured reports",
      "",
      ...renderCost(r.cost),
      "",
      ...load("cost"),
    );
  const idle = r.relayIdle as RelayIdle | null;
  if (idle?.rssMiB && idle.targets) {
    lines.push(
      "## Relay idle cost (relay/bench/idle.mjs)",
      "",
      "| Measure | Result | Target |",
      "| --- | --- | --- |",
      idle.rssMB && idle.targets.rssMB
        ? `| Resident memory (max / mean) | ${idle.rssMB.max} MB / ${idle.rssMB.mean} MB (${idle.rssMiB.max} / ${idle.rssMiB.mean} MiB) | ≤ ${idle.targets.rssMB} MB |`
        : `| Resident memory (max / mean) | ${idle.rssMiB.max} MiB / ${idle.rssMiB.mean} MiB | ≤ ${idle.targets.rssMiB} MiB |`,
      `| CPU, share of one core | ${idle.cpuPercentOfOneCore} % | ≤ ${idle.targets.cpuPercentOfOneCore} % |`,
      `| IMDS polls in ${idle.measuredSeconds} s | ${idle.imdsPolls} | 1 per second |`,
      "",
      ...load("relay-idle"),
    );
  }
  if (r.statusScale) lines.push(renderStatusScale(r.statusScale), ...load("status-scale"));
  return `${lines.join("\n")}\n`;
}
