import { join } from "node:path";
import { type FabricSimulator, ManualClock, startFabricSimulator } from "@quiesce/fabric-simulator";
import { REBALANCE_API_VERSION } from "@quiesce/protocol/imds";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RelayHandle, startRelay } from "../src";
import { CORDONED_ANNOTATION, EVENTS_ANNOTATION } from "../src/kubernetes/marks";
import { silentLogger } from "../src/log";
import { CoordinatorStandIn } from "./support/coordinatorStandIn";
import { relaySettings, SS, writeToken } from "./support/kubernetes";
import { tempDir, waitFor } from "./support/wait";

/**
 * A Spot rebalance recommendation with the built-in Kubernetes drain, in the whole relay against
 * the fabric simulator's IMDS (api-version 2024-07-09) and Kubernetes stand-in: an early, gentle
 * drain (cordon, evict with the pods' own grace periods however near its NotBefore), and when a
 * Preempt replaces it the node stays cordoned for the Preempt.
 */

const VM = `${SS}_0`;
let sim: FabricSimulator;
let coordinator: CoordinatorStandIn;
let dir: { path: string; remove: () => Promise<void> };
let relay: RelayHandle | undefined;
beforeAll(async () => {
  sim = await startFabricSimulator({
    clock: new ManualClock(),
    topology: {
      groups: [{ kind: "scaleSetPlacementGroup", name: "spot", scaleSetName: SS, vms: 2 }],
    },
  });
  coordinator = await new CoordinatorStandIn().start();
  coordinator.nextReportInSeconds = 0.2;
  dir = await tempDir();
});
afterAll(async () => {
  await coordinator?.stop();
  await sim?.stop();
  await dir?.remove();
});
beforeEach(() => sim.reset());
afterEach(async () => {
  await relay?.stop();
  relay = undefined;
});

async function start(extra: Record<string, unknown> = {}): Promise<void> {
  const settings = relaySettings(sim, writeToken(sim, dir.path), {
    QUIESCE_COORDINATOR_URL: coordinator.url,
    QUIESCE_IMDS_URL: sim.imdsUrl(VM),
    QUIESCE_IMDS_API_VERSION: REBALANCE_API_VERSION,
    QUIESCE_POLL_INTERVAL_MS: 200,
    QUIESCE_STATE_FILE: join(dir.path, `state-${Date.now()}.json`),
    ...extra,
  });
  relay = await startRelay(settings, {
    logger: silentLogger,
    reportRetry: { baseMs: 50, maxMs: 300 },
    heartbeatBoundsMs: { min: 100, max: 5_000 },
  });
}

const node = () => sim.kubernetes.nodeOfVm(VM);
const web = () => sim.kubernetes.pods().find((p) => p.name === "web-0");
const placeSlowPod = () =>
  sim.kubernetes.addPods({
    pods: [
      {
        name: "web-0",
        namespace: "shop",
        vm: VM,
        owner: { kind: "ReplicaSet", name: "web-7c9d" },
        terminationGracePeriodSeconds: 300,
      },
    ],
  });

describe("the built-in Kubernetes drain and a rebalance recommendation", () => {
  it("cordons and evicts with the pod's own grace period, longer than the notice and the hook timeout", async () => {
    placeSlowPod();
    await start({ QUIESCE_HOOK_TIMEOUT_SECONDS: 60 });
    sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM], noticeSeconds: 20 });
    await waitFor("the eviction", () => web()?.terminating === true, 15_000);
    expect(web()?.deletionGracePeriodSeconds).toBe(300);
    expect(node().unschedulable).toBe(true);
  });

  it("leaves the node cordoned for a Preempt that replaces it, once its own recover ran", async () => {
    await start();
    const r = sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM] });
    await waitFor("cordoned for it", () => node().unschedulable === true, 15_000);
    const p = sim.schedule({ eventType: "Preempt", resources: [VM], noticeSeconds: 30 });
    await waitFor(
      "only the Preempt holds the node",
      () => node().annotations[EVENTS_ANNOTATION] === p.eventId,
      15_000,
    );
    expect(node().unschedulable).toBe(true);
    expect(node().annotations[CORDONED_ANNOTATION]).toBeDefined();
    expect(node().annotations[EVENTS_ANNOTATION]).not.toContain(r.eventId);
  });

  it("under QUIESCE_REBALANCE_ACTION=none leaves the node alone", async () => {
    placeSlowPod();
    const before = coordinator.reports.length;
    await start({ QUIESCE_REBALANCE_ACTION: "none" });
    sim.schedule({ eventType: "SpotRebalanceRecommendation", resources: [VM] });
    await waitFor("reported", () =>
      coordinator.reports
        .slice(before)
        .some((x) => x.document?.Events.some((e) => e.EventType === "SpotRebalanceRecommendation")),
    );
    // Two more reports: the relay had every chance to act.
    const n = coordinator.reports.length;
    await waitFor("more reports", () => coordinator.reports.length >= n + 2, 15_000);
    expect(node().unschedulable).toBeFalsy();
    expect(web()?.terminating).toBe(false);
  });
});
