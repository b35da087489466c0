import { readFileSync } from "node:fs";
import { join } from "node:path";
import { armCall } from "@quiesce/fabric-simulator";
import { useContractSim } from "@quiesce/testkit/arm";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ArmClient,
  backendMemberships,
  createArmClient,
  NETWORK_API_VERSION,
  readAdminState,
} from "../../functions/src/arm/index";
import { missingPaths } from "./armShape";

/**
 * Microsoft.Network as the load-balancer drain uses it, against the REST spec's examples
 * (fixtures/arm-network/SOURCES.md): the coordinator's parser on the examples' bodies, and the
 * simulator's NIC and backend pool answers compared with them by shape.
 */

type Example = {
  parameters: Record<string, unknown>;
  responses: Record<string, { body: unknown }>;
};
const example = (name: string) =>
  JSON.parse(readFileSync(join(__dirname, "fixtures", "arm-network", name), "utf8")) as Example;
const nicGet = example("NetworkInterfaceGet.json");
const poolGet = example("LoadBalancerBackendAddressPoolGet.json");
const poolPut = example("LBBackendAddressPoolWithBackendAddressesPut.json");
const body = (e: Example, status = "200") => e.responses[status]?.body as Record<string, unknown>;

describe("the coordinator reads the Network examples", () => {
  const stub = useHttpStub();
  let arm: ArmClient;
  beforeEach(() => {
    arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
  });
  afterEach(() => arm.close());

  it("uses the examples' api-version", () => {
    for (const e of [nicGet, poolGet, poolPut])
      expect(e.parameters["api-version"]).toBe(NETWORK_API_VERSION);
  });

  it("finds no backend pool in a NIC whose ip configurations name none (the example's)", async () => {
    const nic = body(nicGet);
    const vm =
      "/subscriptions/subid/resourceGroups/rg1/providers/Microsoft.Compute/virtualMachines/vm1";
    stub.on("GET", vm, {
      status: 200,
      body: { properties: { networkProfile: { networkInterfaces: [{ id: nic.id }] } } },
    });
    stub.on("GET", nic.id as string, { status: 200, body: nic });
    expect(await backendMemberships(arm, { resourceId: vm })).toEqual({ ok: true, value: [] });
  });

  // The spec's NIC-based pool lists its members in backendIPConfigurations only; admin state lives
  // on loadBalancerBackendAddresses[] (docs/control-plane.md "Load-balancer drain": what this leaves
  // unverified). The coordinator says so instead of guessing.
  it("reports a pool that does not list the ip configuration in loadBalancerBackendAddresses", async () => {
    for (const e of [poolGet, poolPut]) {
      const pool = body(e);
      stub.on("GET", pool.id as string, { status: 200, body: pool });
      const ipConfig =
        "/subscriptions/subid/resourceGroups/testrg/providers/Microsoft.Network/networkInterfaces/nic/ipConfigurations/default-ip-config";
      const r = await readAdminState(arm, pool.id as string, ipConfig);
      expect(r).toMatchObject({ ok: false, error: { code: "BackendAddressNotFound" } });
    }
  });
});

describe("the simulator answers Network reads and writes in the examples' shape", () => {
  const ctx = useContractSim();
  const path = (p: string) =>
    `${ctx.sim.arm.resourceGroupId()}/providers/Microsoft.Network/${p}?api-version=${NETWORK_API_VERSION}`;
  const get = async (p: string) => (await armCall(ctx.sim.armUrl, ctx.token, "GET", path(p))).body;

  it("a NIC: the example's shape, without what the simulator does not model", async () => {
    const nic = await get("networkInterfaces/web-0-nic");
    expect(missingPaths(body(nicGet), nic)).toEqual([
      "properties.ipConfigurations[].properties.publicIPAddress",
      "properties.ipConfigurations[].properties.subnet",
      "properties.dnsSettings",
      "properties.macAddress",
      "properties.enableAcceleratedNetworking",
      "properties.disableTcpStateTracking",
      "properties.enableIPForwarding",
      "properties.networkSecurityGroup",
      "properties.dscpConfiguration",
      "properties.vnetEncryptionSupported",
    ]);
  });

  it("a backend pool: every field of the example, with a weak etag like it", async () => {
    const pool = (await get("loadBalancers/lb-web/backendAddressPools/web")) as { etag: string };
    expect(missingPaths(body(poolGet), pool)).toEqual([]);
    expect(pool.etag).toMatch(/^W\/"[0-9a-f-]{36}"$/);
  });

  it("a pool PUT: answered in the example's shape (NIC-based addresses, not IP-based ones)", async () => {
    const before = (await get("loadBalancers/lb-web/backendAddressPools/web")) as {
      etag: string;
      properties: { loadBalancerBackendAddresses: Array<{ properties: { adminState: string } }> };
    };
    const first = before.properties.loadBalancerBackendAddresses[0];
    if (first) first.properties.adminState = "Down";
    const put = await armCall(
      ctx.sim.armUrl,
      ctx.token,
      "PUT",
      path("loadBalancers/lb-web/backendAddressPools/web"),
      {
        body: before,
        headers: { "if-match": before.etag },
      },
    );
    expect(put.status).toBe(200);
    expect(missingPaths(body(poolPut), put.body)).toEqual([
      "properties.loadBalancerBackendAddresses[].properties.virtualNetwork",
      "properties.loadBalancerBackendAddresses[].properties.ipAddress",
    ]);
    const written = put.body as typeof before;
    expect(written.properties.loadBalancerBackendAddresses[0]?.properties.adminState).toBe("Down");
  });
});
