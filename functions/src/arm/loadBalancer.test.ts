import { recordingCredential, type StubRequest, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ArmClient,
  backendMemberships,
  createArmClient,
  readAdminState,
  setAdminState,
} from "./index";

// A VM's backend pool memberships, and its admin state read and written under the pool's etag.

const SUB = "/subscriptions/sub-1/resourceGroups/rg-web/providers";
const NIC = `${SUB}/Microsoft.Network/networkInterfaces/web-0-nic`;
const IPCONFIG = `${NIC}/ipConfigurations/ipconfig1`;
const POOL = `${SUB}/Microsoft.Network/loadBalancers/lb-web/backendAddressPools/web`;
const OTHER_IPCONFIG = `${SUB}/Microsoft.Network/networkInterfaces/web-1-nic/ipConfigurations/ipconfig1`;

const stub = useHttpStub();
let arm: ArmClient;
beforeEach(() => {
  arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
});
afterEach(() => arm.close());

describe("backend memberships", () => {
  it("reads a VM's NICs and each ip configuration's backend pools", async () => {
    stub.on("GET", `${SUB}/Microsoft.Compute/virtualMachines/web-0`, {
      status: 200,
      body: { properties: { networkProfile: { networkInterfaces: [{ id: NIC }] } } },
    });
    stub.on("GET", NIC, {
      status: 200,
      body: {
        properties: {
          ipConfigurations: [
            {
              id: IPCONFIG,
              properties: { loadBalancerBackendAddressPools: [{ id: POOL }, { id: `${POOL}-v6` }] },
            },
            { id: `${NIC}/ipConfigurations/unbalanced`, properties: {} },
          ],
        },
      },
    });
    const r = await backendMemberships(arm, {
      resourceId: `${SUB}/Microsoft.Compute/virtualMachines/web-0`,
    });
    expect(r).toEqual({
      ok: true,
      value: [
        { poolId: POOL, ipConfigurationId: IPCONFIG },
        { poolId: `${POOL}-v6`, ipConfigurationId: IPCONFIG },
      ],
    });
    expect(stub.requestsTo("GET", NIC)[0]?.query).toEqual({ "api-version": "2024-05-01" });
  });

  it("reads a Uniform instance's NIC under Microsoft.Compute with NetworkInterfaces_GetVirtualMachineScaleSetNetworkInterface's 2018-10-01", async () => {
    const instance = `${SUB}/Microsoft.Compute/virtualMachineScaleSets/api/virtualMachines/3`;
    const nic = `${instance}/networkInterfaces/api-nic`;
    stub.on("GET", instance, {
      status: 200,
      body: { properties: { networkProfile: { networkInterfaces: [{ id: nic }] } } },
    });
    stub.on("GET", nic, {
      status: 200,
      body: {
        properties: {
          ipConfigurations: [
            {
              id: `${nic}/ipConfigurations/c1`,
              properties: { loadBalancerBackendAddressPools: [{ id: POOL }] },
            },
          ],
        },
      },
    });
    const r = await backendMemberships(arm, { resourceId: instance });
    expect(r).toEqual({
      ok: true,
      value: [{ poolId: POOL, ipConfigurationId: `${nic}/ipConfigurations/c1` }],
    });
    expect(stub.requestsTo("GET", instance)[0]?.query).toEqual({ "api-version": "2024-07-01" });
    expect(stub.requestsTo("GET", nic)[0]?.query).toEqual({ "api-version": "2018-10-01" });
  });
});

/** A backend pool as the Network RP serves it: this VM's address and another VM's. */
const pool = (etag: string, mine: string | undefined, theirs = "None") => ({
  name: "web",
  id: POOL,
  etag,
  properties: {
    provisioningState: "Succeeded",
    loadBalancerBackendAddresses: [
      {
        name: "other",
        properties: { adminState: theirs, networkInterfaceIPConfiguration: { id: OTHER_IPCONFIG } },
      },
      {
        name: "mine",
        properties: {
          ...(mine === undefined ? {} : { adminState: mine }),
          networkInterfaceIPConfiguration: { id: IPCONFIG.toUpperCase() },
        },
      },
    ],
  },
});
const echo = (req: StubRequest) => ({ status: 200, body: JSON.parse(req.body) });
const putBody = (r: StubRequest | undefined) => JSON.parse(r?.body ?? "{}");

describe("admin state", () => {
  it("reads an absent adminState as None, matching the ip configuration without regard to case", async () => {
    stub.on("GET", POOL, { status: 200, body: pool('W/"1"', undefined) });
    expect(await readAdminState(arm, POOL, IPCONFIG)).toEqual({
      ok: true,
      value: { state: "None" },
    });
  });

  it("writes the pool back with only this address changed, under If-Match of the etag read", async () => {
    stub.on("GET", POOL, { status: 200, body: pool('W/"1"', "None", "Up") });
    stub.on("PUT", POOL, echo);
    const r = await setAdminState(arm, POOL, IPCONFIG, "Down");
    expect(r).toEqual({ ok: true, value: { before: "None", after: "Down", outcome: "changed" } });
    const [put] = stub.requestsTo("PUT", POOL);
    expect(put?.headers["if-match"]).toBe('W/"1"');
    expect(put?.query).toEqual({ "api-version": "2024-05-01" });
    const expected = pool('W/"1"', "Down", "Up");
    expect(putBody(put)).toEqual(expected);
  });

  it("starts over from a fresh read when the PUT answers 412, and writes under the new etag", async () => {
    stub.on(
      "GET",
      POOL,
      { status: 200, body: pool('W/"1"', "None") },
      { status: 200, body: pool('W/"2"', "None") },
    );
    stub.on(
      "PUT",
      POOL,
      {
        status: 412,
        body: { error: { code: "PreconditionFailed", message: "Precondition failed." } },
      },
      echo,
    );
    const r = await setAdminState(arm, POOL, IPCONFIG, "Down");
    expect(r).toMatchObject({
      ok: true,
      value: { before: "None", after: "Down", outcome: "changed" },
    });
    expect(stub.requestsTo("PUT", POOL).map((q) => q.headers["if-match"])).toEqual([
      'W/"1"',
      'W/"2"',
    ]);
  });

  it("gives up with the 412 after three rounds of conflicts", async () => {
    stub.on("GET", POOL, { status: 200, body: pool('W/"1"', "None") });
    stub.on("PUT", POOL, {
      status: 412,
      body: { error: { code: "PreconditionFailed", message: "x" } },
    });
    const r = await setAdminState(arm, POOL, IPCONFIG, "Down");
    expect(r).toMatchObject({ ok: false, error: { status: 412, code: "PreconditionFailed" } });
    expect(stub.requestsTo("PUT", POOL)).toHaveLength(3);
  });

  it("with onlyIf, refuses to overwrite a state an operator set meanwhile, and writes nothing", async () => {
    stub.on("GET", POOL, { status: 200, body: pool('W/"1"', "Up") });
    const r = await setAdminState(arm, POOL, IPCONFIG, "None", { onlyIf: "Down" });
    expect(r).toEqual({ ok: true, value: { before: "Up", after: "Up", outcome: "refused" } });
    expect(stub.requestsTo("PUT", POOL)).toEqual([]);
  });

  it("with onlyIf holding, restores the state", async () => {
    stub.on("GET", POOL, { status: 200, body: pool('W/"1"', "Down") });
    stub.on("PUT", POOL, echo);
    const r = await setAdminState(arm, POOL, IPCONFIG, "None", { onlyIf: "Down" });
    expect(r).toEqual({ ok: true, value: { before: "Down", after: "None", outcome: "changed" } });
  });

  it("writes nothing when the address is already in the state asked", async () => {
    stub.on("GET", POOL, { status: 200, body: pool('W/"1"', "Down") });
    const r = await setAdminState(arm, POOL, IPCONFIG, "Down");
    expect(r).toMatchObject({ ok: true, value: { outcome: "unchanged" } });
    expect(stub.requestsTo("PUT", POOL)).toEqual([]);
  });

  it("says BackendAddressNotFound when the pool has no address for the ip configuration", async () => {
    stub.on("GET", POOL, { status: 200, body: pool('W/"1"', "None") });
    const r = await readAdminState(arm, POOL, `${NIC}/ipConfigurations/elsewhere`);
    expect(r).toMatchObject({ ok: false, error: { code: "BackendAddressNotFound" } });
  });

  it("refuses an id that is not a backend pool's", async () => {
    const r = await readAdminState(arm, NIC, IPCONFIG);
    expect(r).toMatchObject({ ok: false, error: { code: "InvalidResourceId" } });
    expect(stub.requests).toEqual([]);
  });
});
