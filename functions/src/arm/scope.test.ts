import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ArmClient,
  createArmClient,
  createScopeResolver,
  parseResourceId,
  type VmIdentity,
} from "./index";

// Which resource an event is acknowledged on: the VM, its availability set or its scale set.

const RG = "/subscriptions/sub-1/resourceGroups/rg-web/providers/Microsoft.Compute";
const vm = (name: string, resourceId: string, extra?: Partial<VmIdentity>): VmIdentity => ({
  name,
  vmId: `vmid-${name}`,
  resourceId,
  ...extra,
});

const stub = useHttpStub();
let arm: ArmClient;
beforeEach(() => {
  arm = createArmClient({
    endpoint: stub.url,
    credential: recordingCredential(),
    sleep: async () => {},
  });
});
afterEach(() => arm.close());

describe("resource ids", () => {
  it("reads the fixed segments and type names without regard to case, keeping names as written", () => {
    expect(
      parseResourceId(
        "/SUBSCRIPTIONS/Sub-1/RESOURCEGROUPS/RG-Web/PROVIDERS/microsoft.compute/VIRTUALMACHINESCALESETS/Api/virtualmachines/3/",
      ),
    ).toEqual({
      subscriptionId: "Sub-1",
      resourceGroup: "RG-Web",
      namespace: "microsoft.compute",
      resources: [
        { type: "VIRTUALMACHINESCALESETS", name: "Api" },
        { type: "virtualmachines", name: "3" },
      ],
    });
    expect(parseResourceId("/subscriptions/s/resourceGroups/rg")).toBeUndefined();
    expect(parseResourceId(`${RG}/virtualMachines`)).toBeUndefined();
  });
});

describe("the acknowledge scope", () => {
  it("scopes a Uniform scale set instance to its scale set, without asking ARM", async () => {
    const r = await createScopeResolver(arm).resolve(
      vm("api_3", `${RG}/virtualMachineScaleSets/api/virtualMachines/3`, { vmScaleSetName: "api" }),
    );
    expect(r).toEqual({
      ok: true,
      value: {
        subscriptionId: "sub-1",
        resourceGroup: "rg-web",
        resourceType: "virtualMachineScaleSets",
        name: "api",
      },
    });
    expect(stub.requests).toEqual([]);
  });

  it("scopes a Flexible member (vmScaleSetName set) to the scale set in its resource group, without asking ARM", async () => {
    const r = await createScopeResolver(arm).resolve(
      vm("api_1a2b3c4d", `${RG}/virtualMachines/api_1a2b3c4d`, { vmScaleSetName: "api" }),
    );
    expect(r).toMatchObject({
      ok: true,
      value: { resourceType: "virtualMachineScaleSets", name: "api" },
    });
    expect(stub.requests).toEqual([]);
  });

  it("scopes an availability set VM to its availability set, read once from ARM for two resolutions", async () => {
    stub.on("GET", `${RG}/virtualMachines/web-0`, {
      status: 200,
      body: {
        name: "web-0",
        properties: {
          availabilitySet: { id: `${RG.replace("rg-web", "RG-WEB")}/availabilitySets/AVSET-WEB` },
        },
      },
    });
    const resolver = createScopeResolver(arm);
    const web0 = vm("web-0", `${RG}/virtualMachines/web-0`);
    const first = await resolver.resolve(web0);
    const second = await resolver.resolve(web0);
    const expected = {
      subscriptionId: "sub-1",
      resourceGroup: "RG-WEB",
      resourceType: "availabilitySets",
      name: "AVSET-WEB",
    };
    expect(first).toEqual({ ok: true, value: expected });
    expect(second).toEqual(first);
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]?.query).toEqual({ "api-version": "2024-07-01" });
  });

  it("scopes a standalone VM to itself", async () => {
    stub.on("GET", `${RG}/virtualMachines/solo`, {
      status: 200,
      body: { name: "solo", properties: {} },
    });
    const r = await createScopeResolver(arm).resolve(vm("solo", `${RG}/virtualMachines/solo`));
    expect(r).toMatchObject({ ok: true, value: { resourceType: "virtualMachines", name: "solo" } });
  });

  it("asks again for a VM re-created under the same name (a new vmId), and after a failure", async () => {
    stub.on(
      "GET",
      `${RG}/virtualMachines/db-0`,
      { status: 404, body: { error: { code: "ResourceNotFound", message: "not found" } } },
      { status: 200, body: { properties: {} } },
    );
    const resolver = createScopeResolver(arm);
    const db0 = vm("db-0", `${RG}/virtualMachines/db-0`);
    expect(await resolver.resolve(db0)).toMatchObject({
      ok: false,
      error: { status: 404, code: "ResourceNotFound" },
    });
    expect(await resolver.resolve(db0)).toMatchObject({ ok: true });
    expect(await resolver.resolve({ ...db0, vmId: "vmid-recreated" })).toMatchObject({ ok: true });
    expect(stub.requests).toHaveLength(3);
  });

  it("forgets the least recently used resolution beyond maxEntries", async () => {
    stub.on("GET", `${RG}/virtualMachines/a`, { status: 200, body: {} });
    stub.on("GET", `${RG}/virtualMachines/b`, { status: 200, body: {} });
    const resolver = createScopeResolver(arm, { maxEntries: 1 });
    const [a, b] = [vm("a", `${RG}/virtualMachines/a`), vm("b", `${RG}/virtualMachines/b`)];
    for (const v of [a, a, b, a]) await resolver.resolve(v);
    expect(stub.requests.map((r) => r.path.split("/").at(-1))).toEqual(["a", "b", "a"]);
  });

  it("refuses an id that is not a VM's, naming it", async () => {
    const r = await createScopeResolver(arm).resolve(vm("x", "/subscriptions/s/resourceGroups/rg"));
    expect(r).toMatchObject({ ok: false, error: { code: "InvalidResourceId", attempts: 0 } });
  });
});
