import type { IncomingMessage, ServerResponse } from "node:http";
import { armApi, surroundings } from "../arm/api";
import { ArmEngine } from "../arm/engine";
import { armHandler } from "../arm/http/server";
import { TOKEN_PATH } from "../arm/http/tokenEndpoint";
import { IdentityRegistry } from "../arm/identity";
import { AttestedDocuments, signingClock } from "../attested/service";
import type { ControlTargets } from "../control/route";
import { handleControl } from "../control/routes";
import { ManualClock, ScaledClock } from "../engine/clock";
import { FabricEngine } from "../engine/engine";
import { EventGridService, eventGridApi } from "../eventGrid/service";
import { HealthGates } from "../health/gates";
import { sendJson } from "../http/io";
import { listen } from "../http/listen";
import { ImdsHandler } from "../imds/handler";
import { kubernetesApi } from "../kubernetes/api";
import { KubernetesEngine } from "../kubernetes/engine";
import { kubernetesHandler } from "../kubernetes/http/server";
import { FabricControlError, unwrap } from "../model/controlResult";
import { defaultTopology } from "../topology/topologies";
import { Topology } from "../topology/topology";
import type { FabricSimulator, FabricSimulatorOptions } from "./api";

export type { FabricSimulator, FabricSimulatorOptions } from "./api";
export { FabricControlError };

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
  let base = "";
  const eventGrid = new EventGridService(
    engine,
    (name, code) =>
      `${base}/control/eventGrid/subscriptions/${encodeURIComponent(name)}/validate?code=${encodeURIComponent(code)}`,
  );
  arm.patchRuns.connect((run, event) =>
    eventGrid.publishOther(event, {
      eventId: run.correlationId.slice(run.correlationId.lastIndexOf("/") + 1),
      group: run.configurationId.slice(run.configurationId.lastIndexOf("/") + 1),
      ended: run.status !== "Scheduled",
    }),
  );

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
  const targets: ControlTargets = {
    engine,
    eventGrid,
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
    signingClock(clock),
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
    eventGrid: eventGridApi(eventGrid),
    attestation: attested.standIn(),
    ...surroundings(arm),
    setHealth: (name, status) => unwrap(health.set({ name, status })),
    health: () => health.list(),
    imdsUrl: targets.imdsUrl,
    vmNames: () => Object.keys(engine.state().vms),
    relayVmNames: () =>
      Object.values(engine.state().vms).flatMap((vm) => (vm.relay ? [vm.name] : [])),
    schedule: (event) => unwrap(engine.schedule(event)),
    deleteInstances: (scaleSet, vms, options) =>
      unwrap(engine.deleteInstances({ ...options, scaleSet, vms })),
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
        eventGrid.stop();
        await Promise.all([main.close(), armListener.close(), k8sListener.close()]);
      })();
      return stopped;
    },
  };
}
