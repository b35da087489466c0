import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StatusClient } from "@quiesce/cli";
import {
  type EventGridSubscription,
  type FabricOptions,
  type FabricSimulator,
  type SimClock,
  startFabricSimulator,
  type TopologyInput,
} from "@quiesce/fabric-simulator";
import {
  type AzuriteHandle,
  type LocalCoordinator,
  type Meter,
  startAzurite,
  startLocalCoordinator,
} from "@quiesce/functions";
import {
  type Logger,
  parseRelaySettings,
  type RelayHandle,
  type RelayOptions,
  type RelaySettingsInput,
  silentLogger,
  startRelay,
} from "@quiesce/relay";

/**
 * The whole system on one machine, every part real: Azurite (Table Storage), the coordinator's
 * handlers behind the local HTTP host, the fabric simulator playing Azure, and one relay loop per
 * simulated VM talking to both over loopback sockets. `npm start`, the end-to-end tests and the
 * benchmarks all stand on this.
 */

export interface LocalClusterOptions {
  cluster?: string;
  topology?: TopologyInput;
  /** Simulated seconds per real second in the fabric (a 15-minute notice in 15 s at 60). */
  timeScale?: number;
  fabricClock?: SimClock;
  /** Fabric behaviour (minStartedSeconds, requireAllApprovals...). */
  fabricOptions?: Partial<FabricOptions>;
  /**
   * QUIESCE_POLICY for the coordinator (JSON object: {default, clusters}); or made from the
   * fabric, for policies that name its URLs (an HTTP gate's health endpoint, an alert rule's id).
   */
  policy?: unknown | ((fabric: FabricSimulator) => unknown);
  /** Extra coordinator settings (QUIESCE_*). */
  coordinatorSettings?: Record<string, string>;
  /** How often the coordinator sweeps (ms). */
  sweepIntervalMs?: number;
  /** Where Azurite keeps data; in memory when absent. */
  azuriteLocation?: string;
  /** Where the local shared keys live; fresh keys when absent. */
  keysDir?: string;
  /** Coordinator port (0: a free one). */
  port?: number;
  /**
   * VMs that get a relay; when absent, every VM the topology gives one (all but those declared
   * `relay: false`, or in a group with `relays: false`). Others stay unmanaged.
   */
  relayVms?: string[];
  /** Relay settings for every relay (hooks, poll interval...), on top of the wiring. */
  relaySettings?: Partial<RelaySettingsInput>;
  /** Per-VM relay settings (the fabric is up: they may name its URLs). */
  relaySettingsFor?: (vm: string, fabric: FabricSimulator) => Partial<RelaySettingsInput>;
  /**
   * The fabric's Kubernetes stand-in; with `drain`, every relay drains its node through it
   * (QUIESCE_KUBERNETES_DRAIN, the stand-in's URL, its service-account token in a file).
   */
  kubernetes?: { drain?: boolean; recreateAfterMs?: number };
  relayOptions?: RelayOptions;
  relayLogger?: (vm: string) => Logger;
  coordinatorLog?: (level: string, message: string) => void;
  /** Where the coordinator's metrics go (an OTel SDK meter); the global meter when absent. */
  coordinatorMeter?: Meter;
  /**
   * Let the coordinator act through the fabric's loopback Azure Resource Manager
   * (QUIESCE_CONTROL_PLANE): its managed identity comes from the fabric's token endpoint, set
   * in this process the way App Service sets it (IDENTITY_ENDPOINT, IDENTITY_HEADER).
   */
  controlPlane?: boolean;
  /**
   * Events published off the VM (with `controlPlane`): the coordinator takes Event Grid
   * deliveries on its webhook (QUIESCE_CONTROL_PLANE_EVENTS, a generated QUIESCE_EVENT_GRID_KEY),
   * the fabric's Event Grid publisher is subscribed to it, and the Resource Graph backstop reads
   * the fabric's ARM every `resourceGraphIntervalSeconds` (default 300; 0: off).
   */
  controlPlaneEvents?: boolean | { resourceGraphIntervalSeconds?: number };
}

export interface LocalCluster {
  readonly cluster: string;
  readonly fabric: FabricSimulator;
  readonly coordinatorUrl: string;
  /** The cluster's Azurite: a second coordinator instance can share it. */
  readonly connectionString: string;
  readonly relayKey: string;
  readonly operatorKey: string;
  /** Read-only key for the status API and page. */
  readonly readerKey: string;
  readonly status: StatusClient;
  readonly relays: ReadonlyMap<string, RelayHandle>;
  /** The fabric's Event Grid subscription to the coordinator (with `controlPlaneEvents`). */
  readonly eventGrid: EventGridSubscription | null;
  startRelay(vm: string): Promise<RelayHandle>;
  stopRelay(vm: string): Promise<void>;
  /**
   * Stops the coordinator (state stays in Azurite) and starts it again on the same port; with
   * `sweepIntervalMs`, sweeping at that interval from then on.
   */
  restartCoordinator(o?: { sweepIntervalMs?: number }): Promise<void>;
  stopCoordinator(): Promise<void>;
  startCoordinator(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalCluster(o: LocalClusterOptions = {}): Promise<LocalCluster> {
  const cluster = o.cluster ?? "demo";
  const stateDir = mkdtempSync(join(tmpdir(), "quiesce-relays-"));
  const keysDir = o.keysDir ?? mkdtempSync(join(tmpdir(), "quiesce-keys-"));
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c();
  };
  const eventGridKey = randomBytes(24).toString("base64url");
  try {
    const azurite: AzuriteHandle = await startAzurite(
      o.azuriteLocation ? { location: o.azuriteLocation } : {},
    );
    cleanups.push(() => azurite.stop());
    cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));
    if (!o.keysDir) cleanups.push(() => rmSync(keysDir, { recursive: true, force: true }));

    // The fabric first: the coordinator's control plane points at its ARM.
    const fabric = await startFabricSimulator({
      ...o.fabricOptions,
      ...(o.topology ? { topology: o.topology } : {}),
      ...(o.fabricClock ? { clock: o.fabricClock } : { timeScale: o.timeScale ?? 1 }),
      ...(o.kubernetes?.recreateAfterMs !== undefined
        ? { kubernetes: { recreateAfterMs: o.kubernetes.recreateAfterMs } }
        : {}),
    });
    cleanups.push(() => fabric.stop());
    if (o.controlPlane) {
      process.env.IDENTITY_ENDPOINT = fabric.identity.endpoint;
      process.env.IDENTITY_HEADER = fabric.identity.header;
    }
    const coordinatorSettings: Record<string, string> = {
      ...(o.policy === undefined
        ? {}
        : {
            QUIESCE_POLICY: JSON.stringify(
              typeof o.policy === "function" ? o.policy(fabric) : o.policy,
            ),
          }),
      ...(o.controlPlane
        ? {
            QUIESCE_CONTROL_PLANE: "true",
            QUIESCE_ARM_ENDPOINT: fabric.armUrl,
            // The loopback ARM checks audiences as Azure's does: its own is the public cloud's.
            QUIESCE_ARM_AUDIENCE: "https://management.azure.com",
            // Attestation (on with the control plane): trust the fabric's test CA, not Azure's,
            // and fetch its intermediates where its AIA URLs point.
            QUIESCE_ATTESTATION_TRUST_ROOTS: await fabric.attestation.trustRootsPem(),
            QUIESCE_ATTESTATION_AIA_HOSTS: fabric.attestation.aiaHost,
          }
        : {}),
      ...eventSettings(o.controlPlaneEvents, eventGridKey),
      ...o.coordinatorSettings,
    };
    let port = o.port ?? 0;
    let sweepIntervalMs = o.sweepIntervalMs;
    let coordinator: LocalCoordinator | undefined;
    const startCoordinator = async () => {
      coordinator = await startLocalCoordinator({
        port,
        connectionString: azurite.connectionString,
        keysDir,
        settings: coordinatorSettings,
        ...(sweepIntervalMs !== undefined ? { sweepIntervalMs } : {}),
        ...(o.coordinatorLog ? { log: o.coordinatorLog } : {}),
        ...(o.coordinatorMeter ? { meter: o.coordinatorMeter } : {}),
      });
      port = coordinator.port; // restarts come back on the same port, where the relays point
    };
    const stopCoordinator = async () => {
      await coordinator?.stop();
      coordinator = undefined;
    };
    await startCoordinator();
    cleanups.push(stopCoordinator);
    const first = coordinator as unknown as LocalCoordinator;
    const eventGrid = o.controlPlaneEvents
      ? fabric.eventGrid.subscribe({
          name: "quiesce",
          endpointUrl: `${first.url}/api/maintenance/eventgrid?code=${eventGridKey}`,
        })
      : null;
    await eventGrid?.settled();

    // As a DaemonSet's pod would have it mounted: the service account's token in a file.
    const kubernetesSettings: Partial<RelaySettingsInput> = {};
    if (o.kubernetes?.drain) {
      const tokenFile = join(stateDir, "kubernetes-token");
      writeFileSync(tokenFile, fabric.kubernetes.token, { mode: 0o600 });
      Object.assign(kubernetesSettings, {
        QUIESCE_KUBERNETES_DRAIN: true,
        QUIESCE_KUBERNETES_API_URL: fabric.kubernetes.url,
        QUIESCE_KUBERNETES_TOKEN_FILE: tokenFile,
      });
    }
    const relays = new Map<string, RelayHandle>();
    const startOne = async (vm: string) => {
      const settings = parseRelaySettings({
        QUIESCE_COORDINATOR_URL: first.url,
        QUIESCE_CLUSTER: cluster,
        QUIESCE_AUTH_MODE: "sharedKey",
        QUIESCE_RELAY_KEY: first.relayKey,
        QUIESCE_IMDS_URL: fabric.imdsUrl(vm),
        QUIESCE_STATE_FILE: join(stateDir, `${vm}.json`),
        QUIESCE_LOG_LEVEL: "warn",
        ...kubernetesSettings,
        ...o.relaySettings,
        ...o.relaySettingsFor?.(vm, fabric),
      });
      const handle = await startRelay(settings, {
        logger: o.relayLogger?.(vm) ?? silentLogger,
        ...o.relayOptions,
      });
      relays.set(vm, handle);
      return handle;
    };
    const stopOne = async (vm: string) => {
      await relays.get(vm)?.stop();
      relays.delete(vm);
    };
    cleanups.push(async () => {
      await Promise.all([...relays.keys()].map(stopOne));
    });
    await Promise.all((o.relayVms ?? fabric.relayVmNames()).map(startOne));

    return {
      cluster,
      fabric,
      coordinatorUrl: first.url,
      connectionString: azurite.connectionString,
      relayKey: first.relayKey,
      operatorKey: first.operatorKey,
      readerKey: first.readerKey,
      status: new StatusClient(first.url, first.operatorKey),
      relays,
      eventGrid,
      startRelay: startOne,
      stopRelay: stopOne,
      stopCoordinator,
      startCoordinator,
      async restartCoordinator(r = {}) {
        await stopCoordinator();
        if (r.sweepIntervalMs !== undefined) sweepIntervalMs = r.sweepIntervalMs;
        await startCoordinator();
      },
      stop: cleanup,
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

function eventSettings(
  o: LocalClusterOptions["controlPlaneEvents"],
  key: string,
): Record<string, string> {
  if (!o) return {};
  const interval = typeof o === "object" ? (o.resourceGraphIntervalSeconds ?? 300) : 300;
  return {
    QUIESCE_CONTROL_PLANE_EVENTS: "true",
    QUIESCE_EVENT_GRID_KEY: key,
    QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: String(interval),
  };
}
