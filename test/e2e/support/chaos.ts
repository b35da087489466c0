import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StatusClient } from "@quiesce/cli";
import {
  type FabricSimulator,
  startFabricSimulator,
  type TopologyInput,
} from "@quiesce/fabric-simulator";
import { type AzuriteHandle, loadOrCreateLocalKeys, startAzurite } from "@quiesce/functions";
import { parseRelaySettings, type RelayHandle, silentLogger, startRelay } from "@quiesce/relay";
import { CoordinatorProcess, coordinatorBundle } from "@quiesce/testkit/coordinator";
import { type ReportProxy, startReportProxy } from "@quiesce/testkit/front";
import { startLagMonitor } from "@quiesce/testkit/lag";
import { hookMarkers, type Markers } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { build } from "esbuild";
import { relayBuildOptions } from "../../../relay/scripts/build-options.mjs";

/**
 * The whole system as separate processes where a crash matters: Azurite on disk, two coordinator
 * instances (the local host, each its own `node` process, sharing Azurite and the keys), one
 * relay as its own process (the shipped single-file bundle). The fabric simulator and the other
 * relays are real loops in the test process, each with its own twist: a clock 30 s ahead, a clock
 * 30 s behind, reports duplicated and replayed out of order by a proxy. Every piece can be
 * SIGKILLed and restarted on the same data and port.
 */

/** What chaos runs under: fast reports while active, the idle interval long enough to notice. */
export const CHAOS_POLICY = {
  activeReportSeconds: 2,
  idleReportSeconds: 20,
  approvalLeaseSeconds: 5,
  livenessTimeoutSeconds: 15,
  maxEventsInFlight: 1,
};

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once("exit", () => r()));
}

/** The relay as its own process (the shipped bundle), SIGKILL-able and started again. */
export class RelayProcess {
  private child: ChildProcess | undefined;
  output = "";
  constructor(
    private readonly bundle: string,
    private readonly env: Record<string, string>,
  ) {}

  start(): void {
    const child = spawn(process.execPath, [this.bundle], {
      env: { PATH: process.env.PATH ?? "", ...this.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    const keep = (b: Buffer) => {
      this.output = (this.output + b.toString()).slice(-8000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
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

/**
 * Behind the relay's back, after forwarding a report, sends the same report again (a duplicate)
 * and the one before it (out of order, older incarnation or hook state): the coordinator must
 * take both without rolling anything back.
 */
function replayReports(proxy: ReportProxy) {
  const last = new Map<string, Buffer>();
  const stats = { replayed: 0, inFlight: 0 };
  const post = (path: string, headers: Record<string, string>, body: Buffer) => {
    stats.inFlight++;
    return fetch(`${proxy.target}${path}`, {
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
  proxy.afterAnswer = ({ vm, path, headers, body, status }) => {
    if (path !== "/api/relay/report" || status !== 200) return;
    const before = last.get(vm);
    last.set(vm, body);
    void (async () => {
      await post(path, headers, body);
      if (before) await post(path, headers, before);
      stats.replayed += before ? 2 : 1;
    })();
  };
  return stats;
}

export interface ChaosCluster {
  readonly cluster: string;
  readonly fabric: FabricSimulator;
  readonly markers: Markers;
  readonly coordinators: [CoordinatorProcess, CoordinatorProcess];
  /** The relay that runs as its own process (SIGKILL-able), reporting through `relayProxy`. */
  readonly relayProcess: RelayProcess;
  /** Between the relay process and coordinator B: lets a test see and drop its answers. */
  readonly relayProxy: ReportProxy;
  readonly replayed: () => number;
  /** Reports the replaying proxy has sent to coordinator A and not yet had answered. */
  readonly reportsInFlight: () => number;
  readonly operatorKey: string;
  /**
   * How long this process and the busier coordinator were kept from running within [from, to]
   * (Date.now() ms): what a wall-time bound over that interval adds (@quiesce/testkit/lag).
   */
  schedulingDelay(fromMs: number, toMs: number): Promise<{ ms: number; detail: string }>;
  status(): StatusClient;
  killAzurite(): Promise<void>;
  startAzurite(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * web-0: in process, coordinator A, clock +30 s; web-1: in process, coordinator B, clock -30 s;
 * web-2: in process, coordinator A through the replaying proxy; web-3: its own process,
 * coordinator B through a proxy that can drop an answer.
 */
export async function startChaosCluster(topology: TopologyInput): Promise<ChaosCluster> {
  const cluster = "chaos";
  const work = mkdtempSync(join(tmpdir(), "quiesce-chaos-"));
  const markers = hookMarkers();
  const lag = startLagMonitor();
  const cleanups: Array<() => Promise<void> | void> = [
    () => lag.stop(),
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
    const [bundle] = await Promise.all([
      coordinatorBundle(),
      build({ ...relayBuildOptions({ outfile: relayBundle }), logLevel: "error" }),
    ]);
    const location = join(work, "azurite");
    let azurite: AzuriteHandle = await startAzurite({ location });
    const azuritePort = azurite.port;
    cleanups.push(() => azurite.stop());
    const keysDir = join(work, "keys");
    const keys = loadOrCreateLocalKeys(keysDir);
    // Both sweep every 500 ms, so they race on every write; Azurite comes back on its port.
    const instance = (name: string) =>
      new CoordinatorProcess({
        bundle,
        name,
        connectionString: azurite.connectionString,
        keysDir,
        settings: { QUIESCE_POLICY: JSON.stringify({ default: CHAOS_POLICY }) },
        sweepIntervalMs: 500,
        measureLag: true,
      });
    const a = instance("coordinator A");
    const b = instance("coordinator B");
    await Promise.all([a.start(), b.start()]);
    cleanups.push(
      () => a.stop(),
      () => b.stop(),
    );

    const fabric = await startFabricSimulator({ topology, timeScale: 1 });
    cleanups.push(() => fabric.stop());
    const proxy = await startReportProxy();
    proxy.target = a.url;
    const replays = replayReports(proxy);
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
    const relayProcess = new RelayProcess(relayBundle, relaySettings("web-3", relayProxy.url));
    relayProcess.start();
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
      replayed: () => replays.replayed,
      reportsInFlight: () => replays.inFlight,
      operatorKey: keys.operatorKey,
      async schedulingDelay(fromMs, toMs) {
        const own = lag.between(fromMs, toMs);
        const [la, lb] = await Promise.all([a.lag(fromMs, toMs), b.lag(fromMs, toMs)]);
        return {
          ms: own + Math.max(la, lb),
          detail: `this process ${own} ms, coordinators A ${la} ms and B ${lb} ms`,
        };
      },
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
