import { type FabricSimulator, ManualClock, startFabricSimulator } from "@quiesce/fabric-simulator";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HookPayload } from "../src/hooks/payload";
import type { HookRunner } from "../src/hooks/runner";
import { CORDONED_ANNOTATION, EVENTS_ANNOTATION, EXCLUDE_LABEL } from "../src/kubernetes/marks";
import {
  kubernetesRunner,
  payload as payloadFor,
  placeWorkload as place,
  RecordingHook,
  run,
  SS,
  writeToken,
} from "./support/kubernetes";
import { tempDir, waitFor } from "./support/wait";

/**
 * The built-in Kubernetes drain and recover, through the real @kubernetes/client-node, against
 * the fabric simulator's loopback Kubernetes API server: PDB-respecting evictions, the
 * DaemonSet/mirror exceptions, grace caps, the deadline, Quiesce's marks, resuming.
 */

let sim: FabricSimulator;
let dir: { path: string; remove: () => Promise<void> };
let token: string;
beforeAll(async () => {
  sim = await startFabricSimulator({
    clock: new ManualClock(),
    kubernetes: { recreateAfterMs: 100 },
    topology: {
      groups: [
        { kind: "scaleSetPlacementGroup", name: "pool", scaleSetName: SS, vms: 3 },
        {
          kind: "scaleSetPlacementGroup",
          name: "flex",
          scaleSetName: "vmss-flex",
          orchestrationMode: "Flexible",
          vms: 1,
        },
      ],
    },
  });
  dir = await tempDir();
  token = writeToken(sim, dir.path);
});
afterAll(async () => {
  await sim?.stop();
  await dir?.remove();
});
let base = new RecordingHook();
beforeEach(() => {
  sim.reset();
  base = new RecordingHook();
});
const hooks = (extra: Record<string, unknown> = {}): HookRunner =>
  kubernetesRunner(sim, token, base, extra);
const payload = (vm: string, hook: "drain" | "recover"): HookPayload => payloadFor(sim, vm, hook);
const placeWorkload = (vm: string, n: number, grace = 1) => place(sim, vm, n, grace);

describe("drain", () => {
  it("cordons, evicts one pod at a time under a PDB, skips DaemonSet and mirror pods, then the hook", async () => {
    placeWorkload(`${SS}_0`, 3);
    sim.kubernetes.addPdb({
      name: "web",
      namespace: "shop",
      matchLabels: { app: "web" },
      maxUnavailable: 1,
    });
    const before = Date.now();
    const out = await run(
      hooks({ QUIESCE_KUBERNETES_EXCLUDE_FROM_LOAD_BALANCERS: true }),
      payload(`${SS}_0`, "drain"),
    );
    const after = Date.now();
    expect(out.result).toBe("succeeded");
    expect(out.detail).toBe(
      `node ${SS}000000 drained: 3 pod(s) evicted, 2 left in place (DaemonSet, mirror or finished); no drain hook configured`,
    );
    expect(base.calls).toEqual(["drain"]);
    const node = sim.kubernetes.nodeOfVm(`${SS}_0`);
    expect(node.unschedulable).toBe(true);
    expect(node.annotations[EVENTS_ANNOTATION]).toBe("E1");
    // When the relay cordoned it, by the relay's (system) clock, as an ISO time.
    const cordonedAt = node.annotations[CORDONED_ANNOTATION] ?? "";
    expect(new Date(Date.parse(cordonedAt)).toISOString()).toBe(cordonedAt);
    expect(Date.parse(cordonedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(cordonedAt)).toBeLessThanOrEqual(after);
    expect(node.labels[EXCLUDE_LABEL]).toBe("true");
    // Every pod moved to the other nodes; the budget refused the second eviction until the first
    // pod's replacement ran elsewhere.
    expect(
      sim.kubernetes
        .pods()
        .filter((p) => p.node === node.name)
        .map((p) => p.name)
        .sort(),
    ).toEqual(["etcd-aks-nodepool1-12345678-vmss-0", "kube-proxy-x"]);
    const log = sim.kubernetes.requests();
    expect(
      log.filter((r) => r.resource === "pods/eviction" && r.status === 429).length,
    ).toBeGreaterThan(0);
    // All as the relay's service account, and nothing its role does not grant.
    expect(log.filter((r) => r.user !== sim.kubernetes.user || r.status === 403)).toEqual([]);
  });

  it("fails at the deadline naming the pods left and why, without running the drain hook", async () => {
    placeWorkload(`${SS}_1`, 2, 30);
    sim.kubernetes.addPdb({
      name: "web",
      namespace: "shop",
      matchLabels: { app: "web" },
      minAvailable: 2,
    });
    const out = await run(hooks(), payload(`${SS}_1`, "drain"), 2_500);
    expect(out.result).toBe("failed");
    expect(out.detail).toMatch(
      new RegExp(
        `^node ${SS}000001 not drained by the deadline: 2 pod\\(s\\) left: shop/web-0 \\(eviction refused \\d+×: Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web needs 2 healthy pods and has 2 currently\\); shop/web-1`,
      ),
    );
    expect(base.calls).toEqual([]);
  });

  it("caps grace periods to what the deadline leaves", async () => {
    placeWorkload(`${SS}_2`, 1, 600);
    const drain = run(hooks(), payload(`${SS}_2`, "drain"), 4_000);
    const evicted = await waitFor(
      "the eviction",
      () => sim.kubernetes.pods().find((p) => p.terminating),
      3_000,
    );
    // 600 s asked for, 4 s left: the pod gets what ends a second before the deadline.
    expect(evicted.deletionGracePeriodSeconds).toBeGreaterThanOrEqual(1);
    expect(evicted.deletionGracePeriodSeconds).toBeLessThanOrEqual(3);
    expect((await drain).result).toBe("succeeded");
  });

  it("resumes an interrupted drain: the cordon stays, evictions of gone pods are fine", async () => {
    placeWorkload(`${SS}_0`, 2, 2);
    const stop = new AbortController();
    const h = hooks();
    const first = run(h, payload(`${SS}_0`, "drain"), 20_000, stop.signal);
    await waitFor("an eviction", () => sim.kubernetes.pods().some((p) => p.terminating), 5_000);
    stop.abort();
    expect((await first).result).toBe("interrupted");
    // A new process (a new client) runs the drain again with attempt 2.
    const again = await run(hooks(), { ...payload(`${SS}_0`, "drain"), attempt: 2 });
    expect(again.result).toBe("succeeded");
    const patches = sim.kubernetes.requests().filter((r) => r.verb === "patch");
    expect(patches).toHaveLength(1); // the second run found its cordon in place
  });

  it("finds a Flexible VM's node by its providerID", async () => {
    const vm = sim.vmNames().find((v) => v.startsWith("vmss-flex_")) as string;
    const out = await run(hooks(), payload(vm, "drain"));
    expect(out.result).toBe("succeeded");
    expect(sim.kubernetes.nodeOfVm(vm).unschedulable).toBe(true);
  });
});

describe("recover", () => {
  it("runs the recover hook, then uncordons and unlabels what Quiesce cordoned", async () => {
    const h = hooks({ QUIESCE_KUBERNETES_EXCLUDE_FROM_LOAD_BALANCERS: true });
    expect((await run(h, payload(`${SS}_0`, "drain"))).result).toBe("succeeded");
    const out = await run(h, payload(`${SS}_0`, "recover"));
    expect(out).toMatchObject({
      result: "succeeded",
      detail: `no recover hook configured; node ${SS}000000 uncordoned`,
    });
    expect(base.calls).toEqual(["drain", "recover"]);
    const node = sim.kubernetes.nodeOfVm(`${SS}_0`);
    expect([
      node.unschedulable,
      node.labels[EXCLUDE_LABEL],
      node.annotations[EVENTS_ANNOTATION],
    ]).toEqual([false, undefined, undefined]);
  });

  it("leaves a node an operator cordoned cordoned", async () => {
    const name = sim.kubernetes.nodeOfVm(`${SS}_1`).name;
    sim.kubernetes.cordon(name);
    const h = hooks();
    expect((await run(h, payload(`${SS}_1`, "drain"))).result).toBe("succeeded");
    const out = await run(h, payload(`${SS}_1`, "recover"));
    expect(out.detail).toContain("stays cordoned");
    expect(sim.kubernetes.nodeOfVm(`${SS}_1`).unschedulable).toBe(true);
  });
});
