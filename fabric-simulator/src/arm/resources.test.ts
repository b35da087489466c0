import { describe, expect, it } from "vitest";
import { getInstanceMetadata } from "../imds/probe";
import { useArmSim } from "../testing/useArmSim";
import { armCall, errorCode } from "./probe";

/**
 * ARM's gates (401, 403, 404, api-version) and the Compute and Network reads: ids and vmIds are
 * the ones each VM's IMDS reports, and a NIC names the backend pools it is in.
 */

const arm = useArmSim();

/** `t`: the bearer token; null sends none. */
const get = (path: string, t: string | null = arm.token) =>
  armCall(arm.sim.armUrl, t ?? undefined, "GET", path);
const rg = () => arm.sim.arm.resourceGroupId();

describe("authentication and authorization", () => {
  const vmPath = () =>
    `${rg()}/providers/Microsoft.Compute/virtualMachines/web-0?api-version=2024-07-01`;

  it("answers 401 with a Bearer challenge to a missing, malformed or unknown token", async () => {
    const missing = await get(vmPath(), null);
    expect([missing.status, errorCode(missing)]).toEqual([401, "AuthenticationFailed"]);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer authorization_uri="/);
    const basic = await armCall(arm.sim.armUrl, undefined, "GET", vmPath(), {
      headers: { authorization: "Basic dXNlcjpwYXNz" },
    });
    expect([basic.status, errorCode(basic)]).toEqual([401, "AuthenticationFailedInvalidHeader"]);
    const forged = await get(vmPath(), "not-a-token-the-simulator-issued");
    expect([forged.status, errorCode(forged)]).toEqual([401, "InvalidAuthenticationToken"]);
    expect(forged.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(arm.sim.arm.requests().map((r) => [r.status, r.principalId])).toEqual([
      [401, null],
      [401, null],
      [401, null],
    ]);
  });

  it("answers 403 AuthorizationFailed once the identity's role is revoked", async () => {
    const revoked = arm.sim.arm.revoke({ principalId: arm.sim.identity.principalId, scope: rg() });
    expect(revoked).toBe(1);
    const r = await get(vmPath());
    expect([r.status, errorCode(r)]).toEqual([403, "AuthorizationFailed"]);
    expect((r.body as { error: { message: string } }).error.message).toBe(
      `The client '${arm.sim.identity.principalId}' with object id '${arm.sim.identity.principalId}' does not have authorization to perform action 'Microsoft.Compute/virtualMachines/read' over scope '${vmPath().split("?")[0]}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
    );
    arm.sim.arm.grant({
      principalId: arm.sim.identity.principalId,
      scope: `${rg()}/providers/Microsoft.Compute/virtualMachines/web-0`,
    });
    expect((await get(vmPath())).status).toBe(200);
    expect((await get(vmPath().replace("web-0", "web-1"))).status).toBe(403);
  });

  it("checks the api-version, the subscription and the resource group", async () => {
    const noVersion = await get(vmPath().split("?")[0] as string);
    expect([noVersion.status, errorCode(noVersion)]).toEqual([400, "MissingApiVersionParameter"]);
    const old = await get(vmPath().replace("2024-07-01", "2015-06-15"));
    expect([old.status, errorCode(old)]).toEqual([400, "NoRegisteredProviderFound"]);
    expect((old.body as { error: { message: string } }).error.message).toContain(
      "The supported api-versions are '2023-09-01, 2024-03-01, 2024-07-01",
    );
    const otherSub = await get(
      vmPath().replace(
        arm.sim.state().topology.subscriptionId,
        "11111111-1111-4111-8111-111111111111",
      ),
    );
    expect([otherSub.status, errorCode(otherSub)]).toEqual([404, "SubscriptionNotFound"]);
    const otherRg = await get(
      vmPath().replace("/resourceGroups/quiesce-sim/", "/resourceGroups/elsewhere/"),
    );
    // The default role is on the simulated resource group only: another group is not even visible.
    expect([otherRg.status, errorCode(otherRg)]).toEqual([403, "AuthorizationFailed"]);
    arm.sim.arm.grant({
      principalId: arm.sim.identity.principalId,
      scope: `/subscriptions/${arm.sim.state().topology.subscriptionId}`,
    });
    const granted = await get(
      vmPath().replace("/resourceGroups/quiesce-sim/", "/resourceGroups/elsewhere/"),
    );
    expect([granted.status, errorCode(granted)]).toEqual([404, "ResourceGroupNotFound"]);
    expect(
      errorCode(await get(`${rg()}/providers/Microsoft.Compute/disks/d1?api-version=2024-07-01`)),
    ).toBe("NotFound");
  });
});

describe("Compute and Network reads", () => {
  it("serves a VM with the vmId and resource id its IMDS reports, its NIC, and its availability set", async () => {
    const imds = await getInstanceMetadata(arm.sim.imdsUrl("web-1"));
    const compute = imds.body?.compute;
    const vm = await get(`${compute?.resourceId}?api-version=2024-07-01`);
    expect(vm.status).toBe(200);
    const body = vm.body as { properties: { availabilitySet: { id: string } } };
    expect(body).toMatchObject({
      name: "web-1",
      id: compute?.resourceId,
      type: "Microsoft.Compute/virtualMachines",
      properties: {
        vmId: compute?.vmId,
        networkProfile: {
          networkInterfaces: [
            { id: `${rg()}/providers/Microsoft.Network/networkInterfaces/web-1-nic` },
          ],
        },
      },
    });
    const avset = body.properties.availabilitySet.id;
    expect(avset.toLowerCase()).toBe(
      `${rg()}/providers/Microsoft.Compute/availabilitySets/avset-web`.toLowerCase(),
    );

    const nic = await get(
      `${rg()}/providers/microsoft.network/NETWORKINTERFACES/WEB-1-NIC?api-version=2024-05-01`,
    );
    expect(nic.status).toBe(200);
    expect(nic.body).toMatchObject({
      name: "web-1-nic",
      properties: {
        ipConfigurations: [
          {
            id: `${rg()}/providers/Microsoft.Network/networkInterfaces/web-1-nic/ipConfigurations/ipconfig1`,
            properties: {
              loadBalancerBackendAddressPools: [
                {
                  id: `${rg()}/providers/Microsoft.Network/loadBalancers/lb-web/backendAddressPools/web`,
                },
              ],
            },
          },
        ],
        virtualMachine: { id: compute?.resourceId },
      },
    });
    const db = await get(
      `${rg()}/providers/Microsoft.Network/networkInterfaces/db-0-nic?api-version=2024-05-01`,
    );
    expect(db.body).toMatchObject({
      properties: { ipConfigurations: [{ properties: { loadBalancerBackendAddressPools: [] } }] },
    });
  });

  it("serves a Uniform scale-set instance and its NIC (at 2018-10-01, the only version Azure documents)", async () => {
    const imds = await getInstanceMetadata(arm.sim.imdsUrl("vmss-api_3"));
    const resourceId = imds.body?.compute.resourceId as string;
    expect(resourceId).toBe(
      `${rg()}/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-api/virtualMachines/3`,
    );
    const vm = await get(`${resourceId}?api-version=2024-07-01`);
    const nicId = `${resourceId}/networkInterfaces/vmss-api-nic`;
    expect(vm.body).toMatchObject({
      name: "vmss-api_3",
      instanceId: "3",
      properties: {
        vmId: imds.body?.compute.vmId,
        networkProfile: { networkInterfaces: [{ id: nicId }] },
      },
    });
    const nic = await get(`${nicId}?api-version=2018-10-01`);
    expect(nic.status).toBe(200);
    expect(nic.body).toMatchObject({
      id: nicId,
      properties: { virtualMachine: { id: resourceId } },
    });
    expect(errorCode(await get(`${nicId}?api-version=2024-05-01`))).toBe(
      "NoRegisteredProviderFound",
    );
    const missing = await get(`${resourceId.replace(/3$/, "42")}?api-version=2024-07-01`);
    expect([missing.status, errorCode(missing)]).toEqual([404, "NotFound"]);
    const noScaleSet = await get(
      `${resourceId.replace("vmss-api", "vmss-gone")}?api-version=2024-07-01`,
    );
    expect([noScaleSet.status, errorCode(noScaleSet)]).toEqual([404, "ResourceNotFound"]);
  });

  it("answers 404 ResourceNotFound for an unknown VM and for one Azure deleted after a Preempt", async () => {
    const unknown = await get(
      `${rg()}/providers/Microsoft.Compute/virtualMachines/nope?api-version=2024-07-01`,
    );
    expect([unknown.status, errorCode(unknown)]).toEqual([404, "ResourceNotFound"]);
    arm.sim.schedule({ eventType: "Preempt", resources: ["db-2"], noticeSeconds: 30 });
    arm.sim.advance(120);
    const evicted = await get(
      `${rg()}/providers/Microsoft.Compute/virtualMachines/db-2?api-version=2024-07-01`,
    );
    expect([evicted.status, errorCode(evicted)]).toEqual([404, "ResourceNotFound"]);
  });
});
