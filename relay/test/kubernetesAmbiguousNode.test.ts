import { writeFileSync } from "node:fs";
import { systemClock } from "@quiesce/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRelaySettings } from "../src/config";
import type { HookPayload } from "../src/hooks/payload";
import { kubernetesHooks } from "../src/kubernetes/hook";
import { silentLogger } from "../src/log";
import { relayConfigFrom } from "../src/options";
import { CannedKubernetes } from "./support/cannedKubernetes";
import { RecordingHook, run, SS } from "./support/kubernetes";
import { tempDir } from "./support/wait";

/**
 * Two Node objects whose spec.providerID is this VM's (they differ only in case: a stale Node
 * left by a re-registration). Draining either would report the VM drained while the other may
 * still run pods, so neither drain nor recover picks one: the hook fails naming both nodes, and
 * nothing is cordoned, evicted or uncordoned. Served by a loopback API server through the real
 * @kubernetes/client-node: the fabric simulator keeps one node per VM.
 */

const resourceId = `/subscriptions/s/resourceGroups/MC_rg_aks_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/${SS}/virtualMachines/0`;
const node = (name: string, providerID: string, unschedulable = false) => ({
  metadata: { name, uid: `uid-${name}`, resourceVersion: "7" },
  spec: { providerID, ...(unschedulable ? { unschedulable } : {}) },
});
const NODES = {
  kind: "NodeList",
  apiVersion: "v1",
  metadata: { resourceVersion: "9" },
  items: [
    node(`${SS}000000`, `azure://${resourceId}`, true),
    node(`${SS}000000-old`, `azure://${resourceId.toLowerCase()}`),
  ],
};
const DETAIL = `2 Kubernetes nodes have this VM's spec.providerID (${SS}000000, ${SS}000000-old): refusing to pick one; delete the stale Node object`;

let api: CannedKubernetes;
let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  api = await new CannedKubernetes({ "GET /api/v1/nodes": { status: 200, body: NODES } }).start();
  dir = await tempDir();
  writeFileSync(`${dir.path}/token`, "canned-token");
});
afterAll(async () => {
  await api?.stop();
  await dir?.remove();
});

const payload = (hook: "drain" | "recover"): HookPayload => ({
  hook,
  attempt: 1,
  deadline: new Date().toISOString(),
  dryRun: false,
  vm: { name: `${SS}_0`, vmId: "00000000-0000-0000-0000-000000000000", resourceId },
  event: {
    EventId: "E1",
    EventType: "Reboot",
    Resources: [`${SS}_0`],
    EventStatus: "Scheduled",
    NotBefore: "",
  },
});

function hooks(base: RecordingHook) {
  const settings = parseRelaySettings({
    QUIESCE_COORDINATOR_URL: "http://127.0.0.1:9",
    QUIESCE_CLUSTER: "k8s",
    QUIESCE_AUTH_MODE: "sharedKey",
    QUIESCE_RELAY_KEY: "test-relay-key-0123456789",
    QUIESCE_KUBERNETES_DRAIN: true,
    QUIESCE_KUBERNETES_API_URL: api.url,
    QUIESCE_KUBERNETES_TOKEN_FILE: `${dir.path}/token`,
  });
  return kubernetesHooks(relayConfigFrom(settings).kubernetes, base.runner, {
    log: silentLogger,
    clock: systemClock,
    pollMs: 50,
  });
}
const writes = () => api.requests.filter((r) => r.method !== "GET");

describe("a VM with two nodes of its providerID", () => {
  it("fails the drain naming both nodes: nothing cordoned, nothing evicted, no drain hook", async () => {
    const base = new RecordingHook();
    const out = await run(hooks(base), payload("drain"));
    expect(out).toEqual({ result: "failed", detail: DETAIL, output: "" });
    expect(base.calls).toEqual([]);
    expect(writes()).toEqual([]);
    expect(api.requests.filter((r) => r.path.includes("pods"))).toEqual([]);
  });

  it("fails the recover naming both nodes, after the recover hook: nothing uncordoned", async () => {
    const base = new RecordingHook();
    const out = await run(hooks(base), payload("recover"));
    expect(out).toEqual({
      result: "failed",
      detail: `no recover hook configured; ${DETAIL}`,
      output: "",
    });
    expect(base.calls).toEqual(["recover"]);
    expect(writes()).toEqual([]);
  });
});
