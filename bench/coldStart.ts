import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAzurite } from "@quiesce/functions";
import { PROTOCOL_VERSION, type RelayReport } from "@quiesce/protocol/relay";
import { round, type Summary, summary } from "./stats";

/**
 * (l) Cold start of the packaged Function app: `npm run package` builds artifacts/functions/,
 * then fresh `node` processes each require its dist/app.js as the Functions Node worker does
 * (a stand-in for the worker's @azure/functions-core records the handlers it registers), and
 * answer one relay report through the registered relayReport handler, on Azurite, with the
 * test-friendly HttpRequest of @azure/functions (bench/coldStartChild.cjs). The report is a
 * heartbeat of a VM an unmeasured first run registered (tables created): what a new instance
 * of a running deployment answers first. Then the same with an Application Insights connection
 * string (an unreachable ingestion endpoint; nothing is exported before the process ends), so
 * the Azure Monitor distro loads on that first invocation.
 */

export interface ColdStartRun {
  loadMs: number;
  rssAfterLoadMB: number;
  firstReportMs?: number;
  processStartToReportMs?: number;
  rssAfterReportMB?: number;
}

export interface ColdStartResult {
  date: string;
  runs: number;
  /** Bytes of the package: app.js, each lazily required file, the zip azd deploys. */
  size: { appJsBytes: number; lazyFiles: Record<string, number>; zipBytes: number };
  /** `node -e ""`: what Node alone holds, for comparison. */
  bareNodeRssMB: Summary;
  load: { ms: Summary; rssMB: Summary };
  firstReport: { ms: Summary; fromProcessStartMs: Summary; rssMB: Summary };
  firstReportWithAzureMonitor: { ms: Summary; fromProcessStartMs: Summary; rssMB: Summary };
  targets: { loadMs: number; rssMB: number };
}

const TARGETS = { loadMs: 150, rssMB: 80 };
const CLUSTER = "bench-cold";

const relayReport = (): RelayReport => ({
  protocol: PROTOCOL_VERSION,
  cluster: CLUSTER,
  vm: {
    name: "cold-0",
    vmId: "00000000-0000-4000-8000-00000000c01d",
    resourceId:
      "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/bench/providers/Microsoft.Compute/virtualMachines/cold-0",
    subscriptionId: "00000000-0000-0000-0000-000000000000",
    resourceGroupName: "bench",
    vmScaleSetName: "",
    placementGroupId: "",
    platformFaultDomain: "0",
    platformUpdateDomain: "0",
    zone: "",
  },
  relay: { version: "bench", bootId: "boot-1" },
  document: { DocumentIncarnation: 1, Events: [] },
  hooks: [],
  approvals: [],
});

export async function measureColdStart(
  root: string,
  runs = 5,
  log: (s: string) => void = () => undefined,
): Promise<ColdStartResult> {
  log("(l) npm run package -- --functions-only ...");
  execFileSync(
    process.execPath,
    [join(root, "scripts", "package", "package.mjs"), "--functions-only"],
    {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const stage = join(root, "artifacts", "functions");
  const dist = join(stage, "dist");
  const main = join(dist, "app.js");
  const lazyFiles = Object.fromEntries(
    readdirSync(dist)
      .filter((f) => /^lazy-.*\.js$/.test(f))
      .map((f) => [f, statSync(join(dist, f)).size]),
  );
  const size = {
    appJsBytes: statSync(main).size,
    lazyFiles,
    zipBytes: statSync(join(root, "artifacts", "functions.zip")).size,
  };

  // The worker's @azure/functions-core, as test/infra/package.test.ts stands it in.
  const worker = mkdtempSync(join(tmpdir(), "quiesce-cold-"));
  const core = join(worker, "node_modules", "@azure", "functions-core");
  mkdirSync(core, { recursive: true });
  writeFileSync(
    join(core, "index.js"),
    `module.exports = {
       setProgrammingModel() {},
       registerHook() { return { dispose() {} }; },
       registerFunction(metadata, handler) { globalThis.registered[metadata.name] = handler; return { dispose() {} }; },
     };`,
  );
  const azurite = await startAzurite();
  try {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_PATH: join(worker, "node_modules"),
      QUIESCE_STORAGE_CONNECTION_STRING: azurite.connectionString,
      QUIESCE_TABLE_PREFIX: `l${randomBytes(4).toString("hex")}`,
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: randomBytes(24).toString("base64url"),
      QUIESCE_OPERATOR_KEY: randomBytes(24).toString("base64url"),
    };
    const functionsPath = require.resolve("@azure/functions");
    const body = JSON.stringify(relayReport());
    const child = (mode: "load" | "report", extra: NodeJS.ProcessEnv = {}): ColdStartRun => {
      const out = execFileSync(
        process.execPath,
        [join(root, "bench", "coldStartChild.cjs"), main, mode, functionsPath, body],
        { env: { ...env, ...extra }, encoding: "utf8", timeout: 60_000 },
      );
      const run = JSON.parse(out.trim().split("\n").pop() ?? "{}") as ColdStartRun & {
        status?: number;
      };
      if (mode === "report" && run.status !== 200)
        throw new Error(`(l) the first report was answered ${run.status}`);
      return run;
    };
    const bare = Array.from({ length: runs }, () =>
      Number(
        execFileSync(process.execPath, ["-p", "process.memoryUsage().rss"], { encoding: "utf8" }),
      ),
    ).map((b) => round(b / 1e6, 1));
    const loads = Array.from({ length: runs }, () => child("load"));
    child("report"); // registers the VM and creates the tables: not measured
    const reports = Array.from({ length: runs }, () => child("report"));
    const monitor = {
      APPLICATIONINSIGHTS_CONNECTION_STRING:
        "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=http://127.0.0.1:9/",
    };
    const monitored = Array.from({ length: runs }, () => child("report", monitor));
    const ms = (xs: ColdStartRun[], k: keyof ColdStartRun) =>
      summary(xs.map((x) => round(x[k] ?? Number.NaN, 1)));
    const reportFigures = (xs: ColdStartRun[]) => ({
      ms: ms(xs, "firstReportMs"),
      fromProcessStartMs: ms(xs, "processStartToReportMs"),
      rssMB: ms(xs, "rssAfterReportMB"),
    });
    return {
      date: new Date().toISOString(),
      runs,
      size,
      bareNodeRssMB: summary(bare),
      load: { ms: ms(loads, "loadMs"), rssMB: ms(loads, "rssAfterLoadMB") },
      firstReport: reportFigures(reports),
      firstReportWithAzureMonitor: reportFigures(monitored),
      targets: TARGETS,
    };
  } finally {
    await azurite.stop();
    rmSync(worker, { recursive: true, force: true });
  }
}
