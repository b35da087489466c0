import { describe, expect, it } from "vitest";
import {
  afterEviction,
  dueEvictions,
  graceSeconds,
  MIRROR_ANNOTATION,
  skipReason,
  verdict,
} from "../../src/kubernetes/evictions";
import {
  CORDONED_ANNOTATION,
  cordonPatch,
  EVENTS_ANNOTATION,
  EXCLUDE_LABEL,
  EXCLUDED_ANNOTATION,
  uncordonPatch,
} from "../../src/kubernetes/marks";
import { nodeOfVm, providerIdMatches } from "../../src/kubernetes/names";
import type { NodeInfo, PodInfo } from "../../src/kubernetes/objects";

/** The drain's pure decisions: names, which pods, grace caps, retries, verdicts, node marks. */

const pod = (name: string, extra: Partial<PodInfo> = {}): PodInfo => ({
  namespace: "shop",
  name,
  uid: `uid-${name}`,
  controllerKind: "ReplicaSet",
  annotations: {},
  terminationGracePeriodSeconds: 30,
  phase: "Running",
  ...extra,
});
const T = 1_000_000;

describe("finding the node", () => {
  const uniform =
    "/subscriptions/s/resourceGroups/MC_rg_aks_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-12345678-vmss/virtualMachines/10";
  it("matches spec.providerID to IMDS resourceId case-insensitively, for Uniform and Flexible", () => {
    expect(providerIdMatches(`azure://${uniform.replace("MC_rg", "mc_rg")}`, uniform)).toBe(true);
    const flex =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vmss-flex_1a2b3c4d";
    expect(providerIdMatches(`azure://${flex}`, flex)).toBe(true);
    expect(providerIdMatches(`azure://${uniform.replace(/10$/, "1")}`, uniform)).toBe(false);
    expect(providerIdMatches(uniform, uniform)).toBe(false); // no azure:// scheme: not Azure's
    const nodes: NodeInfo[] = [
      {
        name: "aks-nodepool1-12345678-vmss000001",
        providerID: `azure://${uniform.replace(/10$/, "1")}`,
        unschedulable: false,
        labels: {},
        annotations: {},
      },
      {
        name: "aks-nodepool1-12345678-vmss00000a",
        providerID: `azure://${uniform}`,
        unschedulable: false,
        labels: {},
        annotations: {},
      },
    ];
    const found = nodeOfVm(nodes, uniform);
    expect(found.ok && found.value?.name).toBe("aks-nodepool1-12345678-vmss00000a");
  });
});

describe("which pods, with which grace period", () => {
  it("skips DaemonSet, mirror and finished pods", () => {
    expect(skipReason(pod("a", { controllerKind: "DaemonSet" }))).toBe("DaemonSet");
    expect(
      skipReason(pod("b", { controllerKind: "Node", annotations: { [MIRROR_ANNOTATION]: "x" } })),
    ).toBe("mirror");
    expect(skipReason(pod("c", { phase: "Succeeded" }))).toBe("finished");
    expect(skipReason(pod("d", { controllerKind: undefined }))).toBeUndefined();
  });

  it("caps the grace period to end a second before the deadline, never below 1 s", () => {
    expect(graceSeconds(pod("a"), T, T + 60_000)).toBe(30);
    expect(graceSeconds(pod("a"), T, T + 20_000)).toBe(19);
    expect(graceSeconds(pod("a", { terminationGracePeriodSeconds: 5 }), T, T + 20_000)).toBe(5);
    expect(
      graceSeconds(pod("a", { terminationGracePeriodSeconds: undefined }), T, T + 90_000),
    ).toBe(30);
    expect(graceSeconds(pod("a"), T, T + 500)).toBe(1);
  });

  it("evicts each pod once, retries refusals after a backoff, and shortens a too-slow deletion", () => {
    const pods = [pod("a"), pod("b"), pod("ds", { controllerKind: "DaemonSet" })];
    const due = dueEvictions(pods, {}, T, T + 20_000);
    expect(due.map((e) => [e.pod.name, e.graceSeconds])).toEqual([
      ["a", 19],
      ["b", 19],
    ]);
    let p = afterEviction({}, pods[0] as PodInfo, { kind: "evicted", graceSeconds: 19 }, T);
    p = afterEviction(
      p,
      pods[1] as PodInfo,
      { kind: "refused", refusal: { code: 429, reason: "TooManyRequests", message: "budget" } },
      T,
      0,
    );
    expect(dueEvictions(pods, p, T + 400, T + 20_000)).toEqual([]);
    expect(dueEvictions(pods, p, T + 500, T + 20_000).map((e) => e.pod.name)).toEqual(["b"]);
    const slow = pod("slow", { deletionMs: T + 300_000 });
    const quick = pod("quick", { deletionMs: T + 5_000 });
    expect(dueEvictions([slow, quick], {}, T, T + 20_000).map((e) => e.pod.name)).toEqual(["slow"]);
  });

  it("is done when only skipped pods are left, and fails at the deadline naming each pod and why", () => {
    const ds = pod("ds", { controllerKind: "DaemonSet" });
    expect(verdict("n", [ds], {}, T, T + 1)).toMatchObject({ done: true });
    const refusal = {
      code: 429,
      reason: "TooManyRequests",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
    };
    const p = afterEviction({}, pod("a"), { kind: "refused", refusal }, T);
    expect(verdict("n", [ds, pod("a"), pod("b", { deletionMs: T + 3_000 })], p, T, T + 1)).toEqual({
      done: false,
    });
    const v = verdict("n", [ds, pod("a"), pod("b", { deletionMs: T + 3_000 })], p, T + 1, T + 1);
    expect(v).toEqual({
      done: false,
      failed:
        "node n not drained by the deadline: 2 pod(s) left: shop/a (eviction refused 1×: Cannot evict pod as it would violate the pod's disruption budget.); shop/b (terminating, 3 s of grace left)",
    });
  });
});

describe("node marks", () => {
  const node = (extra: Partial<NodeInfo> = {}): NodeInfo => ({
    name: "n",
    resourceVersion: "7",
    unschedulable: false,
    labels: {},
    annotations: {},
    ...extra,
  });
  const NOW = "2026-11-23T05:00:00.000Z";

  it("cordons with Quiesce's marks, and is a no-op when they are there", () => {
    const p = cordonPatch(node(), "E1", NOW, true);
    expect(p).toEqual({
      metadata: {
        resourceVersion: "7",
        annotations: {
          [EVENTS_ANNOTATION]: "E1",
          [CORDONED_ANNOTATION]: NOW,
          [EXCLUDED_ANNOTATION]: NOW,
        },
        labels: { [EXCLUDE_LABEL]: "true" },
      },
      spec: { unschedulable: true },
    });
    const done = node({
      unschedulable: true,
      labels: { [EXCLUDE_LABEL]: "true" },
      annotations: {
        [EVENTS_ANNOTATION]: "E1",
        [CORDONED_ANNOTATION]: NOW,
        [EXCLUDED_ANNOTATION]: NOW,
      },
    });
    expect(cordonPatch(done, "e1", NOW, true)).toBeNull();
  });

  it("never claims a node someone else cordoned, so its recover leaves it cordoned", () => {
    const operators = node({ unschedulable: true });
    const p = cordonPatch(operators, "E1", NOW, false);
    expect(p).toEqual({
      metadata: { resourceVersion: "7", annotations: { [EVENTS_ANNOTATION]: "E1" } },
    });
    const marked = node({ unschedulable: true, annotations: { [EVENTS_ANNOTATION]: "E1" } });
    expect(uncordonPatch(marked, "E1")).toEqual({
      metadata: { resourceVersion: "7", annotations: { [EVENTS_ANNOTATION]: null } },
    });
    expect(uncordonPatch(node({ unschedulable: true }), "E1")).toBeNull();
  });

  it("uncordons when the last of overlapping events recovers, undoing only its own changes", () => {
    const both = node({
      unschedulable: true,
      labels: { [EXCLUDE_LABEL]: "true" },
      annotations: {
        [EVENTS_ANNOTATION]: "E1,E2",
        [CORDONED_ANNOTATION]: NOW,
        [EXCLUDED_ANNOTATION]: NOW,
      },
    });
    expect(uncordonPatch(both, "E1")).toEqual({
      metadata: { resourceVersion: "7", annotations: { [EVENTS_ANNOTATION]: "E2" } },
    });
    const last = { ...both, annotations: { ...both.annotations, [EVENTS_ANNOTATION]: "E2" } };
    expect(uncordonPatch(last, "E2")).toEqual({
      metadata: {
        resourceVersion: "7",
        annotations: {
          [EVENTS_ANNOTATION]: null,
          [CORDONED_ANNOTATION]: null,
          [EXCLUDED_ANNOTATION]: null,
        },
        labels: { [EXCLUDE_LABEL]: null },
      },
      spec: { unschedulable: null },
    });
    expect(uncordonPatch(last, "E9")).toBeNull();
  });
});
