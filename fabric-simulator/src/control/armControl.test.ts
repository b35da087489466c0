import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { armCall, armToken } from "../arm/probe";
import { ManualClock } from "../engine/clock";
import {
  FabricControlError,
  type FabricSimulator,
  startFabricSimulator,
} from "../simulator/simulator";
import { FabricControlClient } from "./client";

/**
 * The loopback ARM driven from another process: FabricControlClient over the control API (what
 * the demo and a separately started simulator use), and the health endpoints of HTTP gates.
 */

let sim: FabricSimulator;
let control: FabricControlClient;
beforeAll(async () => {
  sim = await startFabricSimulator({
    clock: new ManualClock(),
    topology: {
      resourceGroupName: "rg-ctl",
      groups: [
        { kind: "availabilitySet", name: "avset-a", vms: ["a0", "a1"] },
        { kind: "standalone", vms: ["solo"] },
      ],
      loadBalancers: [
        {
          name: "lb-a",
          requestsPerSecond: 4,
          pools: [{ name: "pool-a", groups: ["avset-a", "solo"], adminState: "Up" }],
        },
      ],
      alertRules: [{ name: "latency", severity: "Sev2", description: "p99 over 1 s" }],
    },
  });
  control = new FabricControlClient(sim.url);
});
afterAll(() => sim.stop());
beforeEach(() => control.reset());

describe("ARM over the control API", () => {
  it("says where ARM and the token endpoint listen, and logs who called", async () => {
    const info = await control.arm();
    expect(info).toMatchObject({
      armUrl: sim.armUrl,
      identity: sim.identity,
      resourceGroupName: "rg-ctl",
    });
    const token = await armToken(info.identity);
    const vm = `${sim.arm.resourceGroupId()}/providers/Microsoft.Compute/virtualMachines/solo?api-version=2024-07-01`;
    expect((await armCall(info.armUrl, token, "GET", vm)).status).toBe(200);
    const log = await control.armRequests();
    expect(log).toEqual([
      expect.objectContaining({
        path: vm.split("?")[0],
        principalId: info.identity.principalId,
        status: 200,
      }),
    ]);
    expect(await control.armRequests(log[0]?.seq)).toEqual([]);
  });

  it("injects and clears ARM faults, grants and revokes roles, registers identities", async () => {
    const fault = await control.injectArmFault({ status: 503, count: 3 });
    expect(fault).toMatchObject({ status: 503, remaining: 3, served: 0 });
    expect(await control.armFaults()).toHaveLength(1);
    expect(await control.clearArmFaults()).toEqual({ cleared: 1 });

    const uami = await control.registerIdentity({ name: "ops" });
    expect((await control.identities()).map((i) => i.name)).toEqual(["system-assigned", "ops"]);
    const granted = await control.grant({
      principalId: uami.principalId,
      role: "Reader",
      actions: ["*/read"],
    });
    expect(granted.scope).toBe(sim.arm.resourceGroupId());
    expect((await control.roleAssignments()).map((a) => a.role)).toContain("Reader");
    expect(await control.revoke({ principalId: uami.principalId })).toEqual({ revoked: 1 });
    await expect(control.registerIdentity({ name: "ops" })).rejects.toMatchObject({ status: 409 });
    await expect(control.injectArmFault({ status: 200 as 500 })).rejects.toBeInstanceOf(
      FabricControlError,
    );
  });

  it("shows load balancers with their traffic and takes an operator's admin-state change", async () => {
    await control.advance(10);
    const [lb] = await control.loadBalancers();
    expect(lb).toMatchObject({ name: "lb-a", requestsPerSecond: 4, total: 40, unrouted: 0 });
    expect(lb?.pools[0]?.backends.map((b) => [b.vm, b.adminState, b.routed])).toEqual([
      ["a0", "Up", 14],
      ["a1", "Up", 13],
      ["solo", "Up", 13],
    ]);
    const after = await control.setAdminState("lb-a", "pool-a", "solo", "Down");
    expect(after.pools[0]?.backends[2]).toMatchObject({ vm: "solo", adminState: "Down" });
    await control.advance(10);
    const [later] = await control.loadBalancers();
    expect(later?.pools[0]?.backends.map((b) => b.routed)).toEqual([34, 33, 13]);
    await expect(control.setAdminState("lb-a", "pool-a", "nobody", "Down")).rejects.toMatchObject({
      status: 404,
    });
  });

  it("fires and resolves alerts", async () => {
    const fired = await control.fireAlert("latency");
    expect(fired).toMatchObject({
      rule: "latency",
      severity: "Sev2",
      monitorCondition: "Fired",
      description: "p99 over 1 s",
    });
    expect(await control.alerts()).toHaveLength(1);
    expect(await control.resolveAlert("latency")).toMatchObject({ monitorCondition: "Resolved" });
    await expect(control.resolveAlert("latency")).rejects.toMatchObject({ status: 409 });
  });
});

describe("health endpoints for HTTP gates", () => {
  it("answer 200 until told otherwise, and count the probes", async () => {
    const probe = async () => (await fetch(`${sim.url}/health/app`)).status;
    expect(await probe()).toBe(200);
    expect(await control.setHealth("app", 503)).toMatchObject({ name: "app", status: 503 });
    expect(await probe()).toBe(503);
    const body = await (await fetch(`${sim.url}/health/app`)).json();
    expect(body).toEqual({ name: "app", status: "Unhealthy" });
    expect(await control.healthEndpoints()).toEqual([{ name: "app", status: 503, probes: 3 }]);
    expect(sim.setHealth("app", 200).status).toBe(200);
    expect(await probe()).toBe(200);
    await control.reset();
    expect(sim.health()).toEqual([]);
  });
});
