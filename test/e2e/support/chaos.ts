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
import { createLogger, type LogRecord } from "@quiesce/protocol";
import { parseRelaySettings, type RelayHandle, startRelay } from "@quiesce/relay";
import { CoordinatorProcess, coordinatorBundle } from "@quiesce/testkit/coordinator";
import { type ReportProxy, startReportProxy } from "@quiesce/testkit/front";
import { startLagMonitor } from "@quiesce/testkit/lag";
import { hookMarkers, type Markers } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { build } from "esbuild";
import { relayBuildOptions } from "../../../relay/scripts/build-options.mjs";
import { RelayProcess, replayReports } from "./chaosProcesses";

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

export interface ChaosCluster {
  readonly cluster: string;
  readonly fabric: FabricSimulator;
  readonly markers: Markers;
  readonly coordinators: [CoordinatorProcess, CoordinatorProcess];
  /** The relay that runs as its own process (SIGKILL-able), reporting through `relayProxy`. */
  readonly relayProcess: RelayProcess;
  /** Between the relay process and coordinator B: lets a test see and drop its answers. */
  readonly relayProxy: ReportProxy;
  /** Between web-2 and coordinator A (replaying its reports): lets a test cut web-2 off. */
  readonly replayProxy: ReportProxy;
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
  /** Waits until the coordinator shows the event in one of `phases`. */
  waitForPhase(eventId: string, phases: string[], timeoutMs?: number): Promise<true>;
  /** When both coordinator instances serve the status API again (storage included). */
  answeringAgain(): Promise<number>;
  /**
   * For a failure's message: what the in-process relays logged (info and up) and the
   * coordinators' last output since `fromMs`, so a bound missed once can be read, not guessed.
   */
  journalSince(fromMs: number): string;
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
    const journal: (LogRecord & { vm: string; realMs: number })[] = [];
    const loop = async (vm: string, url: string, skewMs: number) => {
      const logger = createLogger({
        level: "info",
        sink: (r) => {
          journal.push({ ...r, vm, realMs: Date.now() });
          if (journal.length > 500) journal.shift();
        },
      });
      const relay = await startRelay(parseRelaySettings(relaySettings(vm, url)), {
        logger,
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
      replayProxy: proxy,
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
      waitForPhase: (eventId, phases, timeoutMs = 30_000) =>
        waitFor(
          `${eventId} in ${phases.join("/")}`,
          async () => {
            const d = await status()
              .event(eventId, cluster)
              .catch(() => null);
            return phases.includes(d?.phase ?? "");
          },
          timeoutMs,
          50,
        ),
      async answeringAgain() {
        const at = await Promise.all(
          [a, b].map((c) =>
            waitFor(
              `${c.name} answering`,
              async () => {
                const r = await fetch(`${c.url}/api/status`, {
                  headers: { authorization: `Bearer ${keys.operatorKey}` },
                }).catch(() => undefined);
                return r && r.status !== 503 && r.status < 500 ? Date.now() : undefined;
              },
              30_000,
              25,
            ),
          ),
        );
        return Math.max(...at);
      },
      journalSince(fromMs) {
        const relays = journal
          .filter((r) => r.realMs >= fromMs)
          .map(
            (r) =>
              `  +${r.realMs - fromMs} ms ${r.vm} ${r.level} ${r.msg} ${JSON.stringify(r.fields)}`,
          );
        const tail = (c: CoordinatorProcess) =>
          `${c.name}, last output:\n${c.output.split("\n").slice(-15).join("\n")}`;
        return [`relays in process since then:`, ...relays, tail(a), tail(b)].join("\n");
      },
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
