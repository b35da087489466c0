import type { IncomingMessage, ServerResponse } from "node:http";
import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { type ArmApi, type AzureSurroundings, armApi, surroundings } from "./arm/api";
import { ArmEngine } from "./arm/engine";
import { armHandler } from "./arm/http/server";
import { TOKEN_PATH } from "./arm/http/tokenEndpoint";
import { IdentityRegistry } from "./arm/identity";
import { type AttestationStandIn, AttestedDocuments } from "./attested/service";
import { ManualClock, ScaledClock, type SimClock } from "./clock";
import type { ControlTargets } from "./control/route";
import { handleControl } from "./control/routes";
import { FabricControlError, unwrap } from "./controlResult";
import { type ClockView, FabricEngine, type Timeline } from "./engine";
import { type HealthEndpoint, HealthGates } from "./health/gates";
import { sendJson } from "./http/io";
import { listen } from "./http/listen";
import { ImdsHandler } from "./imds/handler";
import { type KubernetesStandIn, kubernetesApi } from "./kubernetes/api";
import { KubernetesEngine } from "./kubernetes/engine";
import { kubernetesHandler } from "./kubernetes/http/server";
import type { InjectFaultInput, JumpIncarnationInput, ScheduleEventInput } from "./model/commands";
import type { ScheduledEventsApiVersion } from "./model/document";
import type { FabricOptions, FabricState, Fault, SimEvent, TimelineEntry } from "./model/types";
import { defaultTopology } from "./topologies";
import { type GroupSpec, Topology, type TopologyInput } from "./topology";

export { FabricControlError };

export interface FabricSimulatorOptions extends Partial<FabricOptions> {
  /** The cluster; the demo default (two availability sets of 4, a placement group of 6) when absent. */
  readonly topology?: TopologyInput;
  /** Simulated seconds per real second (60: a 15-minute notice passes in 15 s). Default 1. */
  readonly timeScale?: number;
  /** Simulated time at start (epoch ms); now when absent. */
  readonly simStart?: number;
  /** Inject a clock (a `ManualClock` in tests); overrides timeScale and simStart. */
  readonly clock?: SimClock;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /**
   * Real ms between background catch-ups of the model, so Started/removal land on the timeline
   * with a real time close to when they were due even when nobody polls. Default 50 for a
   * scaled clock; a manual clock never ticks on its own.
   */
  readonly tickMs?: number;
  /** The loopback Kubernetes API server (see `FabricSimulator.kubernetes`). */
  readonly kubernetes?: {
    /** Real ms a controller waits after a pod is gone before re-creating it elsewhere (2000). */
    readonly recreateAfterMs?: number;
    /** Serve HTTPS with this certificate and key (PEM); plain HTTP on loopback otherwise. */
    readonly tls?: { readonly cert: string; readonly key: string };
  };
}

export interface FabricSimulator extends AzureSurroundings {
  /**
   * `http://127.0.0.1:<port>`: the control API is under `/control`, each VM's IMDS under
   * `/vm/<name>`, the health endpoints of HTTP gates under `/health/<name>`.
   */
  readonly url: string;
  readonly port: number;
  readonly clock: SimClock;
  /** The loopback Azure Resource Manager's base URL (the coordinator's QUIESCE_ARM_ENDPOINT). */
  readonly armUrl: string;
  /**
   * The managed-identity token endpoint on the ARM listener: set `IDENTITY_ENDPOINT=<endpoint>`
   * and `IDENTITY_HEADER=<header>` and `ManagedIdentityCredential` gets tokens for
   * `principalId` (the system-assigned identity; user-assigned ones via `arm.registerIdentity`).
   */
  readonly identity: {
    readonly endpoint: string;
    readonly header: string;
    readonly principalId: string;
    readonly clientId: string;
  };
  /** The ARM request log, injected ARM faults, role assignments, managed identities. */
  readonly arm: ArmApi;
  /**
   * A loopback Kubernetes API server whose nodes are the scale sets' VMs (AKS-style names and
   * `spec.providerID`s): nodes get/list/patch, pods list/get, the pods/eviction subresource with
   * PodDisruptionBudgets, bearer tokens and RBAC; and its controls (pods, PDBs, the request log).
   */
  readonly kubernetes: KubernetesStandIn;
  /** IMDS's attested documents: the test CA hierarchy and what to trust (attested/service.ts). */
  readonly attestation: AttestationStandIn;
  /** What `GET /health/<name>` answers (200 until set); the list shows how often each was probed. */
  setHealth(name: string, status: number): HealthEndpoint;
  health(): HealthEndpoint[];
  /** What to set as the relay's IMDS base URL (instead of `http://169.254.169.254`). */
  imdsUrl(vmName: string): string;
  vmNames(): string[];
  schedule(event: ScheduleEventInput): SimEvent;
  cancel(eventId: string): SimEvent;
  startNow(eventId: string): SimEvent;
  changeResources(eventId: string, resources: string[]): SimEvent;
  jumpIncarnation(group: string, by?: JumpIncarnationInput["by"]): number;
  injectFault(fault: InjectFaultInput): Fault[];
  clearFaults(vm?: string): number;
  addGroups(groups: GroupSpec[]): string[];
  /** Move simulated time forward (both clocks), then apply whatever became due. */
  advance(seconds: number): ClockView;
  now(): ClockView;
  event(eventId: string): SimEvent | undefined;
  events(): SimEvent[];
  timeline(sinceSeq?: number): Timeline;
  /**
   * Hear every new timeline entry (document change, StartRequests, fault, deletion) as it happens,
   * e.g. for a live display; returns the unsubscribe function. Started-at-NotBefore and removals
   * are heard when the model catches up: on the next request or tick (`tickMs`).
   */
  onTimeline(listener: (entry: TimelineEntry) => void): () => void;
  /** The document every VM of the group sees right now. */
  document(group: string, apiVersion?: ScheduledEventsApiVersion): ScheduledEventsDocument;
  state(): FabricState;
  reset(): void;
  stop(): Promise<void>;
}

function route(
  targets: ControlTargets,
  imds: ImdsHandler,
  health: HealthGates,
  attested: AttestedDocuments,
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://simulator");
    const path = url.pathname;
    if (req.method === "GET" && (await attested.serveAia(path, res))) return;
    const vm = /^\/vm\/([^/]+)(\/.*)?$/.exec(path);
    if (vm)
      return imds.handle(
        req,
        res,
        decodeURIComponent(vm[1] as string),
        vm[2] ?? "/",
        url.searchParams,
      );
    if (path === "/control" || path.startsWith("/control/")) {
      return handleControl(
        targets,
        req,
        res,
        path.slice("/control".length) || "/",
        url.searchParams,
      );
    }
    const gate = /^\/health\/([^/]+)$/.exec(path);
    if (gate && req.method === "GET") {
      req.resume();
      return health.probe(decodeURIComponent(gate[1] as string), res);
    }
    return sendJson(res, 404, {
      error:
        "not found: IMDS is under /vm/<vmName>/metadata/..., the control API under /control/..., health endpoints under /health/<name>",
    });
  };
}

/**
 * Start the simulated fabric: one HTTP listener for every VM's IMDS, the control API and the
 * health endpoints, and a second one for the loopback Azure Resource Manager and its
 * managed-identity token endpoint (ARM's paths sit at the root, as on management.azure.com).
 */
export async function startFabricSimulator(
  options: FabricSimulatorOptions = {},
): Promise<FabricSimulator> {
  const topology = Topology.parse(options.topology ?? defaultTopology());
  const clock =
    options.clock ?? new ScaledClock(options.timeScale ?? 1, options.simStart ?? Date.now());
  const engine = new FabricEngine(topology, options, clock);
  const identity = new IdentityRegistry(() => engine.state().topology);
  const arm = new ArmEngine(engine, identity);
  const health = new HealthGates(engine);
  const k8s = new KubernetesEngine(engine, options.kubernetes?.recreateAfterMs ?? 2_000);
  const host = options.host ?? "127.0.0.1";

  const armListener = await listen(armHandler(arm), host, 0);
  const k8sListener = await listen(kubernetesHandler(k8s), host, 0, options.kubernetes?.tls).catch(
    async (e: unknown) => {
      await armListener.close();
      throw e;
    },
  );
  const identityInfo = {
    endpoint: `${armListener.url}${TOKEN_PATH}`,
    header: identity.header,
    principalId: identity.system.principalId,
    clientId: identity.system.clientId,
  };
  let base = "";
  const targets: ControlTargets = {
    engine,
    arm,
    health,
    imdsUrl: (vm) => `${base}/vm/${encodeURIComponent(vm)}`,
    armInfo: () => ({
      armUrl: armListener.url,
      identity: identityInfo,
      tenantId: identity.tenantId,
      subscriptionId: engine.state().topology.subscriptionId,
      resourceGroupName: engine.state().topology.resourceGroupName,
    }),
    k8s,
    kubernetesInfo: () => ({
      url: k8sListener.url,
      token: k8s.relayToken,
      user: kubernetes.user,
      ...(kubernetes.caCert ? { caCert: kubernetes.caCert } : {}),
    }),
  };
  const kubernetes = kubernetesApi(k8s, k8sListener.url, options.kubernetes?.tls?.cert);
  const attested = new AttestedDocuments(
    () => base,
    (name) => engine.state().vms[name],
    () => engine.clockView().simMs,
  );
  const main = await listen(
    route(targets, new ImdsHandler(engine, attested), health, attested),
    host,
    options.port ?? 0,
  ).catch(async (e: unknown) => {
    await Promise.all([armListener.close(), k8sListener.close()]);
    throw e;
  });
  base = main.url;

  const tickMs = options.tickMs ?? (clock instanceof ManualClock ? 0 : 50);
  const ticker =
    tickMs > 0
      ? setInterval(() => {
          engine.sync();
          arm.syncTraffic();
        }, tickMs)
      : undefined;
  ticker?.unref();

  let stopped: Promise<void> | undefined;
  return {
    url: base,
    port: main.port,
    clock,
    armUrl: armListener.url,
    identity: identityInfo,
    arm: armApi(arm, armListener.url),
    kubernetes,
    attestation: attested.standIn(),
    ...surroundings(arm),
    setHealth: (name, status) => unwrap(health.set({ name, status })),
    health: () => health.list(),
    imdsUrl: targets.imdsUrl,
    vmNames: () => Object.keys(engine.state().vms),
    schedule: (event) => unwrap(engine.schedule(event)),
    cancel: (eventId) => unwrap(engine.cancel({ eventId })),
    startNow: (eventId) => unwrap(engine.startNow({ eventId })),
    changeResources: (eventId, resources) => unwrap(engine.changeResources({ eventId, resources })),
    jumpIncarnation: (group, by) => unwrap(engine.jumpIncarnation({ group, by })),
    injectFault: (fault) => unwrap(engine.injectFault(fault)),
    clearFaults: (vm) => unwrap(engine.clearFaults(vm === undefined ? {} : { vm })),
    addGroups: (groups) => unwrap(engine.addGroups({ groups })),
    advance: (seconds) => unwrap(engine.advanceClock({ seconds })),
    now: () => engine.clockView(),
    event: (eventId) => engine.event(eventId),
    events: () => engine.events(),
    timeline: (sinceSeq) => engine.timeline(sinceSeq),
    onTimeline: (listener) => engine.subscribe(listener),
    document: (group, apiVersion) => engine.document(group, apiVersion),
    state: () => engine.state(),
    reset: () => {
      engine.reset();
    },
    stop: () => {
      stopped ??= (async () => {
        if (ticker) clearInterval(ticker);
        await Promise.all([main.close(), armListener.close(), k8sListener.close()]);
      })();
      return stopped;
    },
  };
}
