import type { PodView } from "@quiesce/fabric-simulator";
import { eventKey } from "@quiesce/protocol/imds";
import { type E2eCluster, simEvent, startE2eCluster, waitForPhase } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Kubernetes node pools end to end: real relays with the built-in Kubernetes drain (the real
 * @kubernetes/client-node) against the fabric simulator's loopback Kubernetes API server, the
 * local coordinator on Azurite, at time scale 1. A group's nodes drain under a PodDisruptionBudget
 * one pod at a time; the event is approved only once every node in Resources is empty; Quiesce
 * uncordons what it cordoned and nothing else; a relay killed mid-drain resumes; Uniform and
 * Flexible scale sets map VMs to nodes by spec.providerID.
 */

const SS = "aks-nodepool1-12345678-vmss";
const vm = (i: number) => `${SS}_${i}`;
const topology = {
  groups: [
    { kind: "scaleSetPlacementGroup" as const, name: "nodepool1-pg0", scaleSetName: SS, vms: 4 },
    {
      kind: "scaleSetPlacementGroup" as const,
      name: "flexpool",
      scaleSetName: "vmss-flex",
      orchestrationMode: "Flexible" as const,
      computerNamePrefix: "flexnode",
      vms: 2,
    },
  ],
};

/** Pods a drain must move: not DaemonSet-owned, not mirror pods. */
const evictable = (p: PodView) => p.owner?.kind !== "DaemonSet" && p.owner?.kind !== "Node";

describe("Kubernetes node pools end to end", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(
      topology,
      { maxEventsInFlight: 4 },
      {
        kubernetes: { drain: true, recreateAfterMs: 300 },
        fabricOptions: { minStartedSeconds: 2 },
      },
    );
  });
  afterAll(async () => {
    await e?.stop();
  });
  const k8s = () => e.c.fabric.kubernetes;
  const nodeOf = (v: string) => k8s().nodeOfVm(v);
  const podsOn = (v: string) =>
    k8s()
      .pods()
      .filter((p) => p.node === nodeOf(v).name);

  it("drains a group's nodes under a PDB one pod at a time, approves once all are empty, uncordons only its own", async () => {
    const { c } = e;
    const resources = [vm(0), vm(1)];
    k8s().addPods({
      pods: [
        ...[0, 1, 2, 3].flatMap((n) =>
          [0, 1].map((i) => ({
            name: `web-${n}-${i}`,
            namespace: "shop",
            vm: vm(n),
            labels: { app: "web" },
            owner: { kind: "ReplicaSet", name: "web-6b7f" },
            terminationGracePeriodSeconds: 1,
          })),
        ),
        ...[0, 1, 2, 3].map((n) => ({
          name: `kube-proxy-${n}`,
          namespace: "kube-system",
          vm: vm(n),
          owner: { kind: "DaemonSet", name: "kube-proxy" },
        })),
        { name: "static-agent", namespace: "kube-system", vm: vm(0), mirror: true },
      ],
    });
    k8s().addPdb({
      name: "web",
      namespace: "shop",
      matchLabels: { app: "web" },
      maxUnavailable: 1,
    });
    // An operator took vm 1's node out before the event: Quiesce must leave it that way.
    k8s().cordon(nodeOf(vm(1)).name);
    const since = k8s().requests().at(-1)?.seq ?? 0;

    // What Kubernetes looks like at the very instant Azure hears the approval.
    let eventId = "";
    let leftAtApproval: string[] | undefined;
    const off = c.fabric.onTimeline((entry) => {
      if (
        entry.kind !== "startRequests" ||
        !entry.eventIds.some((id) => eventKey(id) === eventKey(eventId))
      )
        return;
      leftAtApproval ??= resources.flatMap((v) =>
        podsOn(v)
          .filter(evictable)
          .map((p) => p.name),
      );
    });
    try {
      eventId = c.fabric.schedule({ eventType: "Reboot", resources, noticeSeconds: 120 }).eventId;
      await waitForPhase(c, eventId, ["Started", "Completed"], 60_000);
    } finally {
      off();
    }
    const ev = simEvent(c.fabric, eventId);
    expect(ev.startCause).toBe("approval");
    expect(leftAtApproval).toEqual([]);
    // Every web pod of the two nodes went elsewhere; DaemonSet and mirror pods stayed.
    expect(
      podsOn(vm(0))
        .map((p) => p.name)
        .sort(),
    ).toEqual(["kube-proxy-0", "static-agent"]);
    expect(podsOn(vm(1)).map((p) => p.name)).toEqual(["kube-proxy-1"]);
    // The last pod evicted comes back elsewhere recreateAfterMs after it went, which may be after
    // the approval: wait for it rather than assume it is already there.
    await waitFor(
      "every web pod running again",
      () =>
        k8s()
          .pods()
          .filter((p) => p.labels.app === "web").length === 8,
      10_000,
      50,
    );
    expect(
      k8s()
        .pods()
        .filter(
          (p) => p.labels.app === "web" && resources.map(nodeOf).some((n) => n.name === p.node),
        ),
    ).toEqual([]);
    // Two relays draining at once met the budget: some evictions were refused (429) and retried.
    const log = k8s().requests(since);
    expect(
      log.filter((r) => r.resource === "pods/eviction" && r.status === 429).length,
    ).toBeGreaterThan(0);
    expect(log.filter((r) => r.resource === "pods/eviction" && r.status === 201)).toHaveLength(4);
    expect(log.every((r) => r.user === k8s().user && r.status !== 403)).toBe(true);

    // Once the event has left the document: Quiesce's node uncordoned, the operator's not.
    await waitFor("vm 0's node uncordoned", () => !nodeOf(vm(0)).unschedulable, 30_000, 100);
    await waitFor(
      "vm 1's recover done",
      () => nodeOf(vm(1)).annotations["quiesce.io/drain-events"] === undefined,
      30_000,
      100,
    );
    expect(nodeOf(vm(1)).unschedulable).toBe(true);
    expect(
      Object.keys(nodeOf(vm(0)).annotations).filter((a) => a.startsWith("quiesce.io/")),
    ).toEqual([]);
  });

  it("resumes the drain of a relay killed mid-drain", async () => {
    const { c } = e;
    const target = vm(2);
    k8s().addPods({
      pods: [0, 1, 2].map((i) => ({
        name: `slow-${i}`,
        namespace: "batch",
        vm: target,
        owner: { kind: "StatefulSet", name: "slow" },
        terminationGracePeriodSeconds: 3,
      })),
    });
    const eventId = c.fabric.schedule({
      eventType: "Redeploy",
      resources: [target],
      noticeSeconds: 120,
    }).eventId;
    await waitFor("an eviction", () => podsOn(target).some((p) => p.terminating), 20_000, 50);
    await c.stopRelay(target);
    await c.startRelay(target);
    await waitForPhase(c, eventId, ["Started", "Completed"], 60_000);
    expect(simEvent(c.fabric, eventId).startCause).toBe("approval");
    const hooks = c.relays.get(target)?.state().state.events[eventKey(eventId)];
    expect(hooks?.drain).toMatchObject({ status: "succeeded", attempt: 2 });
    expect(podsOn(target).filter(evictable)).toEqual([]);
    await waitFor("uncordoned after", () => !nodeOf(target).unschedulable, 30_000, 100);
  });

  it("maps a Flexible scale set's VM to its node by spec.providerID", async () => {
    const { c } = e;
    const [flex, other] = c.fabric.vmNames().filter((v) => v.startsWith("vmss-flex_")) as [
      string,
      string,
    ];
    const node = nodeOf(flex);
    expect(node.name).toMatch(/^flexnode[a-z0-9]{6}$/);
    const eventId = c.fabric.schedule({
      eventType: "Freeze",
      resources: [flex],
      noticeSeconds: 120,
    }).eventId;
    await waitFor(
      "its node cordoned",
      () => nodeOf(flex).annotations["quiesce.io/drain-events"] === eventId,
      20_000,
      50,
    );
    expect(nodeOf(flex).unschedulable).toBe(true);
    expect(nodeOf(other).unschedulable).toBe(false);
    await waitForPhase(c, eventId, ["Started", "Completed"], 60_000);
    await waitFor("uncordoned after", () => !nodeOf(flex).unschedulable, 30_000, 100);
  });
});
