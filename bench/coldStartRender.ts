import type { ColdStartResult } from "./coldStart";
import type { Summary } from "./stats";

/** latest.md's section for (l), the packaged Function app's cold start (bench/coldStart.ts). */

const range = (s: Summary, unit: string) => `${s.median} ${unit} (min ${s.min}, max ${s.max})`;
const verdict = (pass: boolean) => (pass ? "met" : "**missed**");
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

export function renderColdStart(r: ColdStartResult): string[] {
  const lazy = Object.entries(r.size.lazyFiles)
    .map(([f, b]) => `${f} ${mb(b)}`)
    .join(", ");
  return [
    "## (l) Cold start of the packaged Function app",
    "",
    `\`npm run package\`'s artifacts/functions/dist/app.js required by ${r.runs} fresh \`node\` processes each, as the Functions Node worker loads it (a stand-in for the worker's @azure/functions-core records the handlers); then, in ${r.runs} more, the first relay report answered by the relayReport handler it registered, on Azurite (a heartbeat of a registered VM: a new instance of a running deployment), and the same with an Application Insights connection string set, so the Azure Monitor distro loads on that first invocation. Package: app.js ${mb(r.size.appJsBytes)}; loaded on first use: ${lazy}; functions.zip ${mb(r.size.zipBytes)}. Node alone (\`node -e ""\`) holds ${r.bareNodeRssMB.median} MB. Measured ${r.date}.`,
    "",
    "| Measure | median (min, max) | Target |",
    "| --- | --- | --- |",
    `| Package load: require(app.js) | ${range(r.load.ms, "ms")} | ≤ ${r.targets.loadMs} ms (${verdict(r.load.ms.median <= r.targets.loadMs)}, median) |`,
    `| Resident memory after the load | ${range(r.load.rssMB, "MB")} | ≤ ${r.targets.rssMB} MB (${verdict(r.load.rssMB.median <= r.targets.rssMB)}, median) |`,
    `| First report answered, from the start of the load | ${range(r.firstReport.ms, "ms")} | |`,
    `| First report answered, from the process's start | ${range(r.firstReport.fromProcessStartMs, "ms")} | |`,
    `| Resident memory after the first report | ${range(r.firstReport.rssMB, "MB")} | |`,
    `| With Azure Monitor: first report, from the start of the load | ${range(r.firstReportWithAzureMonitor.ms, "ms")} | |`,
    `| With Azure Monitor: resident memory after the first report | ${range(r.firstReportWithAzureMonitor.rssMB, "MB")} | |`,
    "",
  ];
}
