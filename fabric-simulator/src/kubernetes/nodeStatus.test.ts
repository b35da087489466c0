import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";
import { RELAY_RULES } from "./rbac";

/**
 * PATCH /api/v1/nodes/{name}/status on the loopback Kubernetes API server: conditions merged by
 * `type` in a strategic merge patch (NodeStatus.conditions' patchMergeKey), replaced whole by a
 * merge patch, a resourceVersion precondition, the kubelet's Ready and everything outside
 * status.conditions kept, and RBAC on the `nodes/status` subresource.
 */

let sim: FabricSimulator;
const SS = "aks-nodepool1-12345678-vmss";
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

const NODE = `${SS}000000`;
const STRATEGIC = "application/strategic-merge-patch+json";
async function call(
  method: string,
  body?: unknown,
  o: { token?: string; contentType?: string; path?: string } = {},
) {
  const res = await fetch(`${sim.kubernetes.url}${o.path ?? `/api/v1/nodes/${NODE}/status`}`, {
    method,
    headers: {
      authorization: `Bearer ${o.token ?? sim.kubernetes.token}`,
      "content-type": o.contentType ?? STRATEGIC,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the API's JSON
  return { status: res.status, body: (await res.json()) as any };
}
const types = () =>
  sim.kubernetes.nodeOfVm(`${SS}_0`).conditions.map((c) => `${c.type}=${c.status}`);
const cond = (type: string, status = "True", reason = "AdminRequested") => ({
  type,
  status,
  reason,
  lastTransitionTime: "2026-11-27T10:00:00Z",
});

describe("nodes/{name}/status", () => {
  it("merges conditions by type: a patch of one type leaves the others", async () => {
    const a = await call("PATCH", { status: { conditions: [cond("MaintenancePlanned")] } });
    expect(a.status).toBe(200);
    expect(a.body.status.conditions.map((c: { type: string }) => c.type)).toEqual([
      "Ready",
      "MaintenancePlanned",
    ]);
    await call("PATCH", { status: { conditions: [cond("VendorHealthy")] } });
    await call("PATCH", {
      status: { conditions: [{ type: "MaintenancePlanned", status: "False" }] },
    });
    expect(types()).toEqual(["Ready=True", "MaintenancePlanned=False", "VendorHealthy=True"]);
    // Fields the patch does not name are kept: a merge within the entry.
    expect(sim.kubernetes.nodeOfVm(`${SS}_0`).conditions[1]).toEqual({
      ...cond("MaintenancePlanned"),
      status: "False",
    });
    await call("PATCH", { status: { conditions: [{ type: "VendorHealthy", $patch: "delete" }] } });
    expect(types()).toEqual(["Ready=True", "MaintenancePlanned=False"]);
    // The other node has nothing of it.
    expect(sim.kubernetes.nodeOfVm(`${SS}_1`).conditions.map((c) => c.type)).toEqual(["Ready"]);
  });

  it("takes a resourceVersion as a precondition, and GET serves the node", async () => {
    const admin = sim.kubernetes.issueToken({ user: "admin" });
    const node = await call("GET", undefined, { token: admin.token });
    expect(node.body.metadata.name).toBe(NODE);
    const rv = node.body.metadata.resourceVersion;
    const fresh = await call("PATCH", {
      metadata: { resourceVersion: rv },
      status: { conditions: [cond("Drained")] },
    });
    expect(fresh.status).toBe(200);
    const stale = await call("PATCH", {
      metadata: { resourceVersion: rv },
      status: { conditions: [cond("Drained", "False")] },
    });
    expect([stale.status, stale.body.reason]).toEqual([409, "Conflict"]);
  });

  it("refuses what it does not model: Ready changed or dropped, spec, a missing merge key", async () => {
    const refusals = [
      [{ status: { conditions: [{ type: "Ready", status: "False" }] } }, STRATEGIC],
      [{ status: { conditions: [cond("Drained")] } }, "application/merge-patch+json"],
      [{ spec: { unschedulable: true } }, STRATEGIC],
      [{ status: { conditions: [{ status: "True" }] } }, STRATEGIC],
    ] as const;
    for (const [body, contentType] of refusals) {
      const r = await call("PATCH", body, { contentType });
      expect([r.status, r.body.reason]).toEqual(
        body === refusals[3][0] ? [400, "BadRequest"] : [422, "Invalid"],
      );
    }
    expect(types()).toEqual(["Ready=True"]);
    expect(sim.kubernetes.nodeOfVm(`${SS}_0`).unschedulable).toBe(false);
  });

  it("lets the relay patch nodes/status, and refuses an identity without it with 403", async () => {
    expect(RELAY_RULES).toContainEqual({
      apiGroups: [""],
      resources: ["nodes/status"],
      verbs: ["patch"],
    });
    const { token, user } = sim.kubernetes.issueToken({
      user: "no-status",
      rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "patch"] }],
    });
    const denied = await call("PATCH", { status: { conditions: [cond("Drained")] } }, { token });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      `nodes "${NODE}" is forbidden: User "${user}" cannot patch resource "nodes/status" in API group "" at the cluster scope`,
    );
    // The relay's own role: patch only (no update, no get of the subresource).
    expect((await call("PUT", { status: {} })).status).toBe(403);
    const admin = sim.kubernetes.issueToken({ user: "admin" });
    expect((await call("PUT", { status: {} }, { token: admin.token })).status).toBe(405);
  });
});
