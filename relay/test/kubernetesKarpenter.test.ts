import { type FabricSimulator, ManualClock, startFabricSimulator } from "@quiesce/fabric-simulator";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HookPayload } from "../src/hooks/payload";
import { NODEPOOL_LABEL, stepsAside } from "../src/kubernetes/karpenter";
import {
  kubernetesRunner,
  payload,
  placeWorkload,
  RecordingHook,
  run,
  SS,
  writeToken,
} from "./support/kubernetes";
import { tempDir } from "./support/wait";

/**
 * Beside Karpenter (AKS Node Auto Provisioning): on a node Karpenter labelled with its NodePool,
 * QUIESCE_KUBERNETES_KARPENTER_SPOT=stepAside leaves a Preempt (and a rebalance recommendation) to
 * Karpenter, which repairs such a node itself; every other event, every other node, and the
 * default (coordinate) are drained as usual. Against the fabric simulator's Kubernetes API.
 */

const VM = `${SS}_0`;
let sim: FabricSimulator;
let dir: { path: string; remove: () => Promise<void> };
let token: string;
beforeAll(async () => {
  sim = await startFabricSimulator({
    clock: new ManualClock(),
    topology: {
      groups: [{ kind: "scaleSetPlacementGroup", name: "np", scaleSetName: SS, vms: 2 }],
    },
  });
  dir = await tempDir();
  token = writeToken(sim, dir.path);
});
afterAll(async () => {
  await sim?.stop();
  await dir?.remove();
});
beforeEach(() => sim.reset());

/** Karpenter labels the nodes it provisions when it creates them: here, through the API. */
async function labelAsKarpenters(vm: string): Promise<void> {
  const admin = sim.kubernetes.issueToken({ user: "karpenter" });
  const node = sim.kubernetes.nodeOfVm(vm).name;
  const r = await fetch(`${sim.kubernetes.url}/api/v1/nodes/${node}`, {
    method: "PATCH",
    headers: {
      authorization: `Bearer ${admin.token}`,
      "content-type": "application/merge-patch+json",
    },
    body: JSON.stringify({ metadata: { labels: { [NODEPOOL_LABEL]: "spot" } } }),
  });
  expect(r.status).toBe(200);
}

const drainOf = (eventType: string, vm = VM): HookPayload => {
  const p = payload(sim, vm, "drain");
  return { ...p, event: { ...p.event, EventType: eventType } };
};
const relaysWrites = (since: number) =>
  sim.kubernetes
    .requests(since)
    .filter((r) => r.user === sim.kubernetes.user && r.verb !== "get" && r.verb !== "list");
const lastSeq = () => sim.kubernetes.requests().at(-1)?.seq ?? 0;

describe("the built-in drain beside Karpenter", () => {
  it("under stepAside leaves a Preempt of a Karpenter node to Karpenter: no cordon, nothing evicted, drained at once", async () => {
    await labelAsKarpenters(VM);
    placeWorkload(sim, VM, 2);
    const since = lastSeq();
    const base = new RecordingHook();
    const h = kubernetesRunner(sim, token, base, {
      QUIESCE_KUBERNETES_KARPENTER_SPOT: "stepAside",
    });
    const out = await run(h, drainOf("Preempt"));
    expect(out.result).toBe("succeeded");
    expect(out.detail).toMatch(
      /^stepped aside: node \S+ is Karpenter's \(karpenter\.sh\/nodepool=spot\)/,
    );
    expect(sim.kubernetes.nodeOfVm(VM).unschedulable).toBeFalsy();
    expect(sim.kubernetes.pods().filter((p) => p.terminating)).toEqual([]);
    expect(relaysWrites(since).filter((r) => r.resource !== "nodes/status")).toEqual([]);
    // The operator's own drain hook still runs.
    expect(base.calls).toEqual(["drain"]);
  });

  it("still drains a Freeze of that node (Karpenter acts on Spot signals only), and any event under coordinate, the default", async () => {
    await labelAsKarpenters(VM);
    for (const [settings, eventType] of [
      [{ QUIESCE_KUBERNETES_KARPENTER_SPOT: "stepAside" }, "Freeze"],
      [{}, "Preempt"],
    ] as const) {
      sim.reset();
      await labelAsKarpenters(VM);
      placeWorkload(sim, VM, 1);
      const out = await run(
        kubernetesRunner(sim, token, new RecordingHook(), settings),
        drainOf(eventType),
      );
      expect(out.result, `${eventType} ${JSON.stringify(settings)}`).toBe("succeeded");
      expect(sim.kubernetes.nodeOfVm(VM).unschedulable).toBe(true);
    }
  });

  it("drains a Preempt under stepAside on a node Karpenter does not manage", async () => {
    placeWorkload(sim, VM, 1);
    const h = kubernetesRunner(sim, token, new RecordingHook(), {
      QUIESCE_KUBERNETES_KARPENTER_SPOT: "stepAside",
    });
    expect((await run(h, drainOf("Preempt"))).result).toBe("succeeded");
    expect(sim.kubernetes.nodeOfVm(VM).unschedulable).toBe(true);
  });
});

describe("stepsAside", () => {
  const node = (labels: Record<string, string>) => ({
    name: "aks-spot-x",
    resourceVersion: "1",
    unschedulable: false,
    labels,
    annotations: {},
    providerID: "azure:///x",
  });
  const karpenters = node({ [NODEPOOL_LABEL]: "spot" });
  it("only for Spot's own signals on a Karpenter node, and only when the operator chose stepAside", () => {
    expect(stepsAside(karpenters, { EventType: "Preempt" }, "stepAside")).toMatch(/stepped aside/);
    expect(
      stepsAside(karpenters, { EventType: "SpotRebalanceRecommendation" }, "stepAside"),
    ).toMatch(/stepped aside/);
    for (const t of ["Freeze", "Reboot", "Redeploy", "Terminate"])
      expect(stepsAside(karpenters, { EventType: t }, "stepAside")).toBeUndefined();
    expect(stepsAside(karpenters, { EventType: "Preempt" }, "coordinate")).toBeUndefined();
    expect(stepsAside(node({}), { EventType: "Preempt" }, "stepAside")).toBeUndefined();
  });
});
