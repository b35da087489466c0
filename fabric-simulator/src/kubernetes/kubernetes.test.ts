import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { parseRbacText, RELAY_RULES } from "./rbac";

/**
 * The loopback Kubernetes API server over HTTP: AKS-style nodes from the fabric's scale sets,
 * the gates (401, 403), field selectors as the API server reads them, PATCH by Content-Type with
 * resourceVersion preconditions, and the Eviction API against PodDisruptionBudgets.
 */

let sim: FabricSimulator;
const SS = "aks-nodepool1-12345678-vmss";
beforeAll(async () => {
  sim = await startFabricSimulator({
    clock: new ManualClock(),
    kubernetes: { recreateAfterMs: 50 },
    topology: {
      subscriptionId: "00000000-0000-4000-8000-00000000000a",
      resourceGroupName: "MC_rg_cluster_westeurope",
      groups: [
        { kind: "scaleSetPlacementGroup", name: "pool-pg0", scaleSetName: SS, vms: 12 },
        {
          kind: "scaleSetPlacementGroup",
          name: "flex",
          scaleSetName: "vmss-flex",
          orchestrationMode: "Flexible",
          computerNamePrefix: "flexnode",
          vms: 2,
        },
        { kind: "availabilitySet", name: "avset", vms: 2 },
      ],
    },
  });
});
afterAll(() => sim?.stop());
beforeEach(() => sim.reset());

async function call(
  method: string,
  path: string,
  o: { token?: string | null; body?: unknown; contentType?: string } = {},
) {
  const token = o.token === undefined ? sim.kubernetes.token : o.token;
  const res = await fetch(`${sim.kubernetes.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(o.body !== undefined ? { "content-type": o.contentType ?? "application/json" } : {}),
    },
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the API's JSON
  return { status: res.status, body: (await res.json()) as any };
}

describe("nodes", () => {
  it("names Uniform nodes after the computer name and sets azure:// providerIDs", () => {
    const nodes = sim.kubernetes.nodes();
    expect(nodes.map((n) => n.name)).toContain(`${SS}00000b`);
    const n11 = sim.kubernetes.nodeOfVm(`${SS}_11`);
    expect(n11.name).toBe(`${SS}00000b`);
    expect(n11.providerID).toBe(
      `azure:///subscriptions/00000000-0000-4000-8000-00000000000a/resourceGroups/MC_rg_cluster_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/${SS}/virtualMachines/11`,
    );
    expect(n11.labels.agentpool).toBe("nodepool1");
    const flex = sim.vmNames().filter((v) => v.startsWith("vmss-flex_"));
    expect(flex).toHaveLength(2);
    for (const vm of flex) {
      expect(vm).toMatch(/^vmss-flex_[0-9a-f]{8}$/);
      const n = sim.kubernetes.nodeOfVm(vm);
      expect(n.name).toMatch(/^flexnode[a-z0-9]{6}$/);
      expect(n.providerID).toMatch(
        new RegExp(`/providers/Microsoft.Compute/virtualMachines/${vm}$`),
      );
    }
    expect(nodes.some((n) => n.vm.startsWith("avset"))).toBe(false);
  });

  it("answers 401 without a token and 403 for a verb the relay's role lacks", async () => {
    expect((await call("GET", "/api/v1/nodes", { token: null })).body).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Unauthorized",
      code: 401,
    });
    const del = await call("DELETE", `/api/v1/nodes/${SS}000000`);
    expect(del.status).toBe(403);
    expect(del.body.message).toBe(
      `nodes "${SS}000000" is forbidden: User "system:serviceaccount:quiesce:quiesce-relay" cannot delete resource "nodes" in API group "" at the cluster scope`,
    );
    expect((await call("GET", "/api/v1/pods?watch=true")).status).toBe(403);
    expect(sim.kubernetes.requests().map((r) => [r.verb, r.user, r.status])).toEqual([
      ["list", null, 401],
      ["delete", "system:serviceaccount:quiesce:quiesce-relay", 403],
      ["watch", "system:serviceaccount:quiesce:quiesce-relay", 403],
    ]);
  });

  it("refuses a providerID field selector, as the API server does, and pages lists", async () => {
    const bad = await call("GET", "/api/v1/nodes?fieldSelector=spec.providerID%3Dx");
    expect([bad.status, bad.body.message]).toEqual([
      400,
      "field label not supported: spec.providerID",
    ]);
    const first = await call("GET", "/api/v1/nodes?limit=10");
    expect(first.body.items).toHaveLength(10);
    const rest = await call(
      "GET",
      `/api/v1/nodes?limit=10&continue=${first.body.metadata.continue}`,
    );
    expect(rest.body.items).toHaveLength(4);
    expect(rest.body.metadata.continue).toBeUndefined();
    const one = await call("GET", `/api/v1/nodes?fieldSelector=metadata.name%3D${SS}000001`);
    expect(one.body.items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual([
      `${SS}000001`,
    ]);
  });

  it("patches by Content-Type, with resourceVersion preconditions", async () => {
    const name = `${SS}000002`;
    const before = (await call("GET", `/api/v1/nodes/${name}`)).body;
    const merge = await call("PATCH", `/api/v1/nodes/${name}`, {
      contentType: "application/merge-patch+json",
      body: {
        metadata: { resourceVersion: before.metadata.resourceVersion, annotations: { "a/b": "1" } },
        spec: { unschedulable: true },
      },
    });
    expect(merge.status).toBe(200);
    expect(merge.body.spec.unschedulable).toBe(true);
    const stale = await call("PATCH", `/api/v1/nodes/${name}`, {
      contentType: "application/strategic-merge-patch+json",
      body: {
        metadata: { resourceVersion: before.metadata.resourceVersion },
        spec: { unschedulable: null },
      },
    });
    expect([stale.status, stale.body.reason]).toEqual([409, "Conflict"]);
    const json = await call("PATCH", `/api/v1/nodes/${name}`, {
      contentType: "application/json-patch+json",
      body: [
        { op: "remove", path: "/metadata/annotations/a~1b" },
        { op: "replace", path: "/spec/unschedulable", value: false },
      ],
    });
    expect(json.status).toBe(200);
    expect(sim.kubernetes.nodeOfVm(`${SS}_2`)).toMatchObject({ unschedulable: false });
    expect(sim.kubernetes.nodeOfVm(`${SS}_2`).annotations["a/b"]).toBeUndefined();
    const plain = await call("PATCH", `/api/v1/nodes/${name}`, { body: { spec: {} } });
    expect([plain.status, plain.body.reason]).toEqual([415, "UnsupportedMediaType"]);
    const other = await call("PATCH", `/api/v1/nodes/${name}`, {
      contentType: "application/merge-patch+json",
      body: { spec: { providerID: "azure:///elsewhere" } },
    });
    expect([other.status, other.body.reason]).toEqual([422, "Invalid"]);
  });
});

describe("pods and evictions", () => {
  const node = () => sim.kubernetes.nodeOfVm(`${SS}_0`).name;
  const evict = (name: string, grace?: number) =>
    call("POST", `/api/v1/namespaces/shop/pods/${name}/eviction`, {
      body: {
        apiVersion: "policy/v1",
        kind: "Eviction",
        metadata: { name, namespace: "shop" },
        ...(grace !== undefined ? { deleteOptions: { gracePeriodSeconds: grace } } : {}),
      },
    });

  it("lists a node's pods and refuses evictions a PodDisruptionBudget forbids", async () => {
    sim.kubernetes.addPods({
      pods: [
        ...[0, 1].map((i) => ({
          name: `web-${i}`,
          namespace: "shop",
          vm: `${SS}_0`,
          labels: { app: "web" },
          owner: { kind: "ReplicaSet", name: "web-5d8f" },
          shutdownSeconds: 0.05,
        })),
        {
          name: "web-2",
          namespace: "shop",
          vm: `${SS}_1`,
          labels: { app: "web" },
          owner: { kind: "ReplicaSet", name: "web-5d8f" },
        },
        {
          name: "agent-x",
          namespace: "kube-system",
          vm: `${SS}_0`,
          owner: { kind: "DaemonSet", name: "agent" },
        },
      ],
    });
    sim.kubernetes.addPdb({
      name: "web",
      namespace: "shop",
      matchLabels: { app: "web" },
      minAvailable: 2,
    });
    const listed = await call("GET", `/api/v1/pods?fieldSelector=spec.nodeName%3D${node()}`);
    expect(listed.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual([
      "agent-x",
      "web-0",
      "web-1",
    ]);
    expect(listed.body.items[0].metadata.ownerReferences[0]).toMatchObject({
      kind: "DaemonSet",
      controller: true,
    });

    expect((await evict("web-0", 30)).status).toBe(201);
    const refused = await evict("web-1");
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      reason: "TooManyRequests",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: {
        causes: [
          {
            reason: "DisruptionBudget",
            message: "The disruption budget web needs 2 healthy pods and has 2 currently",
          },
        ],
      },
    });
    // web-0 stops, its ReplicaSet re-creates it on another node, and the budget frees up again.
    await waitFor(
      "web-0 replaced",
      () => sim.kubernetes.pdbs()[0]?.disruptionsAllowed === 1,
      5_000,
    );
    expect(sim.kubernetes.pods().some((p) => p.name === "web-0")).toBe(false);
    expect((await evict("web-1", 0)).status).toBe(201);
    expect((await evict("gone")).status).toBe(404);
  });

  it("keeps the earlier end when a terminating pod is evicted again with less grace", async () => {
    sim.kubernetes.addPods({
      pods: [
        { name: "slow", namespace: "shop", vm: `${SS}_0`, terminationGracePeriodSeconds: 300 },
      ],
    });
    expect((await evict("slow")).status).toBe(201);
    expect(sim.kubernetes.pods()[0]).toMatchObject({
      terminating: true,
      deletionGracePeriodSeconds: 300,
    });
    expect((await evict("slow", 1)).status).toBe(201);
    await waitFor("slow gone", () => sim.kubernetes.pods().length === 0, 5_000);
  });
});

it("grants the relay exactly the rules docs/kubernetes-rbac.txt lists", () => {
  const text = readFileSync(resolve(__dirname, "../../../docs/kubernetes-rbac.txt"), "utf8");
  expect(parseRbacText(text)).toEqual(RELAY_RULES);
});
