import { writeFileSync } from "node:fs";
import { type FabricSimulator, ManualClock, startFabricSimulator } from "@quiesce/fabric-simulator";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectKubernetes, KubeRefused } from "../../relay/src/kubernetes/client";
import { CannedKubernetes } from "../../relay/test/support/cannedKubernetes";
import { tempDir } from "../../relay/test/support/wait";
import {
  composed,
  contractProblems,
  evictionCodes,
  evictionRequest,
  evictionSuccessCodes,
  nodeExample,
  podExample,
  reasonCodes,
  SCHEMA,
  status404,
} from "./kubernetesFixtures";

/**
 * The Kubernetes API's contract from its owners' artifacts (fixtures/kubernetes/SOURCES.md: the
 * OpenAPI spec, kubernetes' own API test data, the API-initiated Eviction page, the API
 * conventions), held against BOTH the fabric simulator's loopback API server (what it answers
 * must be what the schemas and documented codes allow) and the relay's client (it must read the
 * published objects and Status bodies right), so the two cannot drift together.
 */

const SS = "aks-nodepool1-12345678-vmss";
const typed = (kind: string, apiVersion = "v1") => ({ kind, apiVersion });

describe("the fabric simulator's Kubernetes API answers as the contract says", () => {
  let sim: FabricSimulator;
  beforeAll(async () => {
    sim = await startFabricSimulator({
      clock: new ManualClock(),
      topology: {
        groups: [{ kind: "scaleSetPlacementGroup", name: "pool", scaleSetName: SS, vms: 2 }],
      },
    });
  });
  afterAll(() => sim?.stop());
  beforeEach(() => sim.reset());

  const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const res = await fetch(`${sim.kubernetes.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${sim.kubernetes.token}`, "content-type": type },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected field by field
    return { status: res.status, body: (await res.json()) as any };
  };
  const node = () => sim.kubernetes.nodeOfVm(`${SS}_0`).name;
  const evict = (namespace: string, name: string, body: unknown) =>
    call("POST", `/api/v1/namespaces/${namespace}/pods/${name}/eviction`, body);

  it("lists nodes as a NodeList of valid Nodes, providerID in the documented <ProviderName>://<ID> form", async () => {
    const r = await call("GET", "/api/v1/nodes");
    expect(r.status).toBe(200);
    expect(await contractProblems(SCHEMA.nodeList, r.body)).toEqual([]);
    expect(r.body.items).toHaveLength(2);
    for (const n of r.body.items) {
      expect(await contractProblems(SCHEMA.node, n, typed("Node"))).toEqual([]);
      expect(n.spec.providerID).toMatch(/^azure:\/\/\/subscriptions\/[^/]+\/resourceGroups\//);
    }
  });

  it("lists pods by fieldSelector spec.nodeName: only that node's, each a valid Pod", async () => {
    sim.kubernetes.addPods({
      pods: [
        { name: "a", namespace: "shop", vm: `${SS}_0`, owner: { kind: "ReplicaSet", name: "w" } },
        { name: "b", namespace: "shop", vm: `${SS}_1` },
      ],
    });
    const r = await call(
      "GET",
      `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node()}`)}`,
    );
    expect(r.status).toBe(200);
    expect(await contractProblems(SCHEMA.podList, r.body)).toEqual([]);
    expect(r.body.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(["a"]);
    for (const p of r.body.items) {
      expect(p.spec.nodeName).toBe(node());
      expect(await contractProblems(SCHEMA.pod, p, typed("Pod"))).toEqual([]);
    }
  });

  it("takes the documented Eviction request with a declared 2xx, and refuses one a PDB blocks with 429", async () => {
    expect(await contractProblems(SCHEMA.eviction, evictionRequest)).toEqual([]);
    sim.kubernetes.addPods({
      pods: [
        { name: "quux", namespace: "default", vm: `${SS}_0` },
        ...["web-0", "web-1"].map((name) => ({
          name,
          namespace: "shop",
          vm: `${SS}_1`,
          labels: { app: "web" },
        })),
      ],
    });
    const ok = await evict("default", "quux", evictionRequest);
    expect(evictionSuccessCodes).toContain(ok.status);
    expect(await contractProblems(SCHEMA.status, ok.body)).toEqual([]);
    expect(ok.body.status).toBe("Success");

    sim.kubernetes.addPdb({
      name: "web",
      namespace: "shop",
      matchLabels: { app: "web" },
      minAvailable: 2,
    });
    const blocked = await evict("shop", "web-0", {
      ...evictionRequest,
      metadata: { name: "web-0", namespace: "shop" },
    });
    expect(evictionCodes.get(blocked.status)).toMatch(
      /^Too Many Requests: the eviction is not currently allowed because of the$/,
    );
    expect(await contractProblems(SCHEMA.status, blocked.body)).toEqual([]);
    expect(blocked.body).toMatchObject({ kind: "Status", status: "Failure", code: 429 });
  });

  it("answers 404 with a Status shaped like the published NotFound example", async () => {
    const gone = await evict("default", "grafana", {
      ...evictionRequest,
      metadata: { name: "grafana", namespace: "default" },
    });
    const missing = await call("GET", "/api/v1/nodes/no-such-node");
    for (const [r, kind, name] of [
      [gone, "pods", "grafana"],
      [missing, "nodes", "no-such-node"],
    ] as const) {
      expect(r.status).toBe(reasonCodes.get("NotFound"));
      expect(await contractProblems(SCHEMA.status, r.body)).toEqual([]);
      expect(Object.keys(r.body).sort()).toEqual(Object.keys(status404).sort());
      expect(r.body).toMatchObject({
        ...status404,
        message: `${kind} "${name}" not found`,
        details: { name, kind },
      });
    }
  });

  it("merge-patches a node into a valid Node, and answers a stale resourceVersion with 409 Conflict", async () => {
    const patch = (body: unknown) =>
      call("PATCH", `/api/v1/nodes/${node()}`, body, "application/merge-patch+json");
    const r = await patch({ metadata: { labels: { "quiesce.example/x": "y" } } });
    expect(r.status).toBe(200);
    expect(await contractProblems(SCHEMA.node, r.body, typed("Node"))).toEqual([]);
    expect(r.body.metadata.labels["quiesce.example/x"]).toBe("y");
    const stale = await patch({
      metadata: { resourceVersion: "1" },
      spec: { unschedulable: true },
    });
    expect(stale.status).toBe(reasonCodes.get("Conflict"));
    expect(await contractProblems(SCHEMA.status, stale.body)).toEqual([]);
    expect(stale.body).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Conflict",
      code: 409,
    });
  });
});

describe("the relay's Kubernetes client reads the published objects and answers", () => {
  const EVICT = "POST /api/v1/namespaces/namespaceValue/pods/nameValue/eviction";
  let api: CannedKubernetes;
  let dir: { path: string; remove: () => Promise<void> };
  let evictAnswer = { status: 201, body: {} as unknown };
  const { conflict, tooMany, list } = composed;

  beforeAll(async () => {
    api = await new CannedKubernetes({
      "GET /api/v1/nodes": { status: 200, body: list("NodeList", [nodeExample]) },
      "GET /api/v1/nodes/nameValue": { status: 200, body: nodeExample },
      "GET /api/v1/nodes/grafana": { status: 404, body: status404 },
      "PATCH /api/v1/nodes/nameValue": (r) =>
        r.body.includes("resourceVersion")
          ? { status: 409, body: conflict }
          : { status: 200, body: nodeExample },
      "GET /api/v1/pods": { status: 200, body: list("PodList", [podExample]) },
      [EVICT]: () => evictAnswer,
    }).start();
    dir = await tempDir();
    writeFileSync(`${dir.path}/token`, "fixture-token");
  });
  afterAll(async () => {
    await api?.stop();
    await dir?.remove();
  });
  const client = () =>
    connectKubernetes({
      apiUrl: api.url,
      tokenFile: `${dir.path}/token`,
      caFile: `${dir.path}/none`,
    });
  const expected = {
    name: "nameValue",
    resourceVersion: "resourceVersionValue",
    providerID: "providerIDValue",
    unschedulable: true,
    labels: { labelsKey: "labelsValue" },
    annotations: { annotationsKey: "annotationsValue" },
    // status.conditions, times as the API writes them (the lifecycle conditions are decided on it).
    conditions: [
      {
        type: "typeValue",
        status: "statusValue",
        reason: "reasonValue",
        message: "messageValue",
        lastHeartbeatTime: "2003-01-01T01:01:01Z",
        lastTransitionTime: "2004-01-01T01:01:01Z",
      },
    ],
  };

  it("serves only bodies the contract allows", async () => {
    expect(await contractProblems(SCHEMA.nodeList, list("NodeList", [nodeExample]))).toEqual([]);
    // API test data: every field set, enums with placeholder values (so the excerpt, not the models).
    expect(await contractProblems(SCHEMA.node, nodeExample)).toEqual([]);
    expect(await contractProblems(SCHEMA.podList, list("PodList", [podExample]))).toEqual([]);
    for (const s of [status404, conflict, tooMany])
      expect(await contractProblems(SCHEMA.status, s)).toEqual([]);
    expect([conflict.code, tooMany.code]).toEqual([reasonCodes.get("Conflict"), 429]);
  });

  it("reads kubernetes' Node test object: name, providerID, cordon, labels, annotations, version, conditions", async () => {
    const k = await client();
    expect(await k.listNodes()).toEqual([expected]);
    expect(await k.readNode("nameValue")).toEqual(expected);
    expect(api.requests.at(-1)?.authorization).toBe("Bearer fixture-token");
  });

  it("lists a node's pods by fieldSelector and reads the Pod test object's metadata", async () => {
    expect(await (await client()).podsOnNode("nameValue")).toEqual([
      {
        namespace: "namespaceValue",
        name: "nameValue",
        uid: "uidValue",
        controllerKind: "kindValue",
        annotations: { annotationsKey: "annotationsValue" },
        deletionMs: Date.parse("2009-01-01T01:01:01Z"),
      },
    ]);
    expect(api.requests.at(-1)?.query.get("fieldSelector")).toBe("spec.nodeName=nameValue");
  });

  it("sends an Eviction the schema accepts, like the documented example, and reads every declared 2xx as evicted", async () => {
    const k = await client();
    const pod = (await k.podsOnNode("nameValue"))[0];
    if (!pod) throw new Error("no pod");
    for (const status of evictionSuccessCodes) {
      evictAnswer = {
        status,
        body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: status },
      };
      expect(await k.evict(pod, 5)).toEqual({ kind: "evicted", graceSeconds: 5 });
      const sent = JSON.parse(api.requests.at(-1)?.body ?? "{}");
      expect(await contractProblems(SCHEMA.eviction, sent)).toEqual([]);
      expect(sent).toMatchObject({
        apiVersion: evictionRequest.apiVersion,
        kind: evictionRequest.kind,
        metadata: { name: "nameValue", namespace: "namespaceValue" },
        deleteOptions: { gracePeriodSeconds: 5 },
      });
    }
  });

  it("reads the published 404 Status, a 429 budget refusal and a 409 Conflict", async () => {
    const k = await client();
    const pod = (await k.podsOnNode("nameValue"))[0];
    if (!pod) throw new Error("no pod");
    evictAnswer = { status: 404, body: status404 };
    expect(await k.evict(pod, 5)).toEqual({ kind: "gone" });
    evictAnswer = { status: 429, body: tooMany };
    expect(await k.evict(pod, 5)).toEqual({
      kind: "refused",
      refusal: {
        code: 429,
        reason: "TooManyRequests",
        message: `${tooMany.message} ${tooMany.details.causes[0]?.message}`,
      },
    });
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => (e instanceof KubeRefused ? e.refusal : e),
      );
    expect(await refusal(k.readNode("grafana"))).toEqual({
      code: 404,
      reason: "NotFound",
      message: 'pods "grafana" not found',
    });
    expect(await refusal(k.patchNode("nameValue", { metadata: { resourceVersion: "0" } }))).toEqual(
      { code: 409, reason: "Conflict", message: "the object has been modified" },
    );
  });
});
