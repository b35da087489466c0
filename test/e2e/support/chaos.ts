import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { StatusClient } from "@quiesce/cli";
import {
  type FabricSimulator,
  startFabricSimulator,
  type TopologyInput,
} from "@quiesce/fabric-simulator";
import { type AzuriteHandle, loadOrCreateLocalKeys, startAzurite } from "@quiesce/functions";
import { parseRelaySettings, type RelayHandle, silentLogger, startRelay } from "@quiesce/relay";
import { build } from "esbuild";
import { relayBuildOptions } from "../../../relay/scripts/build-options.mjs";
import { waitFor } from "../../support/wait";
import { hookMarkers, type Markers } from "./markers";
import { type ReportProxy, startReportProxy } from "./reportProxy";

/**
 * The whole system as separate processes where a crash matters: Azurite on disk, two coordinator
 * instances (the local host, each its own `node` process, sharing Azurite and the keys), one
 * relay as its own process (the shipped single-file bundle). The fabric simulator and the other
 * relays are real loops in the test process, each with its own twist: a clock 30 s ahead, a clock
 * 30 s behind, reports duplicated and replayed out of order by a proxy. Every piece can be
 * SIGKILLed and restarted on the same data and port.
 */

const root = resolve(__dirname, "..", "..", "..");

/** What chaos runs under: fast reports while active, the idle interval long enough to notice. */
export const CHAOS_POLICY = {
  activeReportSeconds: 2,
  idleReportSeconds: 20,
  approvalLeaseSeconds: 5,
  livenessTimeoutSeconds: 15,
  maxEventsInFlight: 1,
};

/** Bundles the workspace sources for a child process (bare imports stay in node_modules). */
async function bundleCoordinator(): Promise<string> {
  const outDir = join(root, "node_modules", ".cache", "quiesce-chaos");
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, "coordinator.cjs");
  await build({
    entryPoints: [join(__dirname, "coordinatorMain.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "error",
    plugins: [
      {
        name: "workspace-sources",
        setup(b) {
          b.onResolve({ filter: /^@quiesce\/[a-z-]+$/ }, (a) => ({
            path: join(root, a.path.slice("@quiesce/".length), "src", "index.ts"),
          }));
          b.onResolve({ filter: /^[^./]/ }, (a) => ({ path: a.path, external: true }));
        },
      },
    ],
  });
  return outfile;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once("exit", () => r()));
}

/** A child process that can be SIGKILLed and started again with the same settings. */
export class Proc {
  private child: ChildProcess | undefined;
  output = "";
  constructor(
    readonly name: string,
    private readonly args: string[],
    private readonly env: () => Record<string, string>,
  ) {}

  /** Starts it; resolves with its first stdout line when `waitLine`, else at once. */
  async start(waitLine = false): Promise<string> {
    const child = spawn(process.execPath, this.args, {
      env: { PATH: process.env.PATH ?? "", ...this.env() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    const keep = (b: Buffer) => {
      this.output = (this.output + b.toString()).slice(-8000);
    };
    child.stderr?.on("data", keep);
    if (!waitLine) {
      child.stdout?.on("data", keep);
      return "";
    }
    return new Promise((resolveLine, reject) => {
      let text = "";
      child.stdout?.on("data", (b: Buffer) => {
        text += b.toString();
        const nl = text.indexOf("\n");
        if (nl >= 0) resolveLine(text.slice(0, nl));
      });
      child.once("exit", (code) =>
        reject(new Error(`${this.name} exited (${code}) before it was ready: ${this.output}`)),
      );
    });
  }

  /** A crash: no handler runs, nothing is flushed. */
  async kill(): Promise<void> {
    const c = this.child;
    if (!c) return;
    c.kill("SIGKILL");
    await exited(c);
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill("SIGTERM");
    const done = await Promise.race([
      exited(c).then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 5000).unref()),
    ]);
    if (!done) await this.kill();
  }
}

/** One coordinator instance; restarts come back on the same port, where its relays point. */
export class CoordinatorInstance {
  port = 0;
  readonly proc: Proc;
  constructor(name: string, bundle: string, env: () => Record<string, string>) {
    this.proc = new Proc(name, ["--enable-source-maps", bundle], () => ({
      ...env(),
      CHAOS_PORT: String(this.port),
    }));
  }
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    const line = await this.proc.start(true);
    this.port = Number(new URL((JSON.parse(line) as { url: string }).url).port);
  }
}

/**
 * A loopback proxy that forwards every report and then, behind the relay's back, sends the
 * same report again (a duplicate) and the one before it (out of order, older incarnation or
 * hook state): the coordinator must take both without rolling anything back.
 */
export async function startReplayProxy(target: () => string) {
  const last = new Map<string, Buffer>();
  const stats = { replayed: 0, inFlight: 0 };
  const post = (path: string, headers: Record<string, string>, body: Buffer) => {
    stats.inFlight++;
    return fetch(`${target()}${path}`, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(5_000),
    })
      .then(
        (r) => r.arrayBuffer(),
        () => undefined,
      )
      .finally(() => {
        stats.inFlight--;
      });
  };
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((ok, fail) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => ok(Buffer.concat(chunks)));
      req.on("error", fail);
    });
  const server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const headers: Record<string, string> = {};
      for (const name of ["authorization", "content-type"]) {
        const v = req.headers[name];
        if (typeof v === "string") headers[name] = v;
      }
      const path = req.url ?? "/";
      const answer = await fetch(`${target()}${path}`, {
        method: req.method ?? "POST",
        headers,
        ...(body.length > 0 ? { body } : {}),
        signal: AbortSignal.timeout(10_000),
      }).catch(() => undefined);
      if (!answer) return req.socket.destroy();
      const text = await answer.text();
      res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
      if (path !== "/api/relay/report" || answer.status !== 200) return;
      const vm = String((JSON.parse(body.toString()) as { vm?: { name?: string } }).vm?.name);
      const before = last.get(vm);
      last.set(vm, body);
      await post(path, headers, body);
      if (before) await post(path, headers, before);
      stats.replayed += before ? 2 : 1;
    })().catch(() => req.socket.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface ChaosCluster {
  readonly cluster: string;
  readonly fabric: FabricSimulator;
  readonly markers: Markers;
  readonly coordinators: [CoordinatorInstance, CoordinatorInstance];
  /** The relay that runs as its own process (SIGKILL-able), reporting through `relayProxy`. */
  readonly relayProcess: Proc;
  /** Between the relay process and coordinator B: lets a test see and drop its answers. */
  readonly relayProxy: ReportProxy;
  readonly replayed: () => number;
  /** Reports the replaying proxy has sent to coordinator A and not yet had answered. */
  readonly reportsInFlight: () => number;
  readonly operatorKey: string;
  status(): StatusClient;
  killAzurite(): Promise<void>;
  startAzurite(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * web-0: in process, coordinator A, clock +30 s; web-1: in process, coordinator B, clock -30 s;
 * web-2: in process, coordinator A through the replaying proxy; web-3: its own process,
 * coordinator B through a proxy that can drop an answer. Both coordinator instances sweep every 500 ms, so they race on every write.
 */
export async function startChaosCluster(topology: TopologyInput): Promise<ChaosCluster> {
  const cluster = "chaos";
  const work = mkdtempSync(join(tmpdir(), "quiesce-chaos-"));
  const markers = hookMarkers();
  const cleanups: Array<() => Promise<void> | void> = [
    () => markers.remove(),
    () => rmSync(work, { recursive: true, force: true }),
  ];
  const cleanup = async () => {
    for (const c of cleanups.reverse())
      await Promise.resolve()
        .then(c)
        .catch(() => undefined);
  };
  try {
    const relayBundle = join(work, "quiesce-relay.js");
    const [coordinatorBundle] = await Promise.all([
      bundleCoordinator(),
      build({ ...relayBuildOptions({ outfile: relayBundle }), logLevel: "error" }),
    ]);
    const location = join(work, "azurite");
    let azurite: AzuriteHandle = await startAzurite({ location });
    const azuritePort = azurite.port;
    cleanups.push(() => azurite.stop());
    const keysDir = join(work, "keys");
    const keys = loadOrCreateLocalKeys(keysDir);
    const coordinatorEnv = () => ({
      CHAOS_CONNECTION_STRING: azurite.connectionString,
      CHAOS_KEYS_DIR: keysDir,
      QUIESCE_POLICY: JSON.stringify({ default: CHAOS_POLICY }),
    });
    const a = new CoordinatorInstance("coordinator A", coordinatorBundle, coordinatorEnv);
    const b = new CoordinatorInstance("coordinator B", coordinatorBundle, coordinatorEnv);
    await Promise.all([a.start(), b.start()]);
    cleanups.push(
      () => a.proc.stop(),
      () => b.proc.stop(),
    );

    const fabric = await startFabricSimulator({ topology, timeScale: 1 });
    cleanups.push(() => fabric.stop());
    const proxy = await startReplayProxy(() => a.url);
    cleanups.push(() => proxy.stop());

    const relaySettings = (vm: string, coordinatorUrl: string) => ({
      QUIESCE_COORDINATOR_URL: coordinatorUrl,
      QUIESCE_CLUSTER: cluster,
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: keys.relayKey,
      QUIESCE_IMDS_URL: fabric.imdsUrl(vm),
      QUIESCE_STATE_FILE: join(work, `${vm}.json`),
      QUIESCE_DRAIN_COMMAND: markers.command,
      QUIESCE_RECOVER_COMMAND: markers.command,
      QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: "0",
      QUIESCE_LOG_LEVEL: "warn",
    });
    const inProcess: RelayHandle[] = [];
    const loop = async (vm: string, url: string, skewMs: number) => {
      const relay = await startRelay(parseRelaySettings(relaySettings(vm, url)), {
        logger: silentLogger,
        clock: { now: () => Date.now() + skewMs },
        reportRetry: { baseMs: 200, maxMs: 1_000 },
        imds: { retryBaseMs: 50, retryMaxMs: 200 },
      });
      inProcess.push(relay);
    };
    await loop("web-0", a.url, 30_000);
    await loop("web-1", b.url, -30_000);
    await loop("web-2", proxy.url, 0);
    cleanups.push(async () => {
      await Promise.all(inProcess.map((r) => r.stop()));
    });
    const relayProxy = await startReportProxy();
    relayProxy.target = b.url;
    cleanups.push(() => relayProxy.stop());
    const relayProcess = new Proc("relay web-3", [relayBundle], () =>
      relaySettings("web-3", relayProxy.url),
    );
    await relayProcess.start();
    cleanups.push(() => relayProcess.stop());

    const status = () => new StatusClient(a.url, keys.operatorKey);
    await waitFor(
      "4 live relays",
      async () => (await status().cluster(cluster)).liveMembers === 4,
      30_000,
      100,
    );
    return {
      cluster,
      fabric,
      markers,
      coordinators: [a, b],
      relayProcess,
      relayProxy,
      replayed: () => proxy.stats.replayed,
      reportsInFlight: () => proxy.stats.inFlight,
      operatorKey: keys.operatorKey,
      status,
      killAzurite: () => azurite.kill(),
      async startAzurite() {
        azurite = await startAzurite({ location, port: azuritePort });
      },
      stop: cleanup,
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
