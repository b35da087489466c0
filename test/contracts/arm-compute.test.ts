import { readFileSync } from "node:fs";
import { join } from "node:path";
import { armCall } from "@quiesce/fabric-simulator";
import { useContractSim } from "@quiesce/testkit/arm";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ArmClient,
  COMPUTE_API_VERSION,
  createArmClient,
  resolveScope,
} from "../../functions/src/arm/index";
import { missingPaths } from "./armShape";

/**
 * The VM GET the coordinator makes (the acknowledge's scope, a VM's NICs), against the REST spec's
 * `VirtualMachines_Get` example (fixtures/arm-compute/SOURCES.md): the coordinator's parser on the
 * example's body, and the simulator's VM compared with it by shape.
 */

const vmGet = JSON.parse(
  readFileSync(join(__dirname, "fixtures", "arm-compute", "VirtualMachine_Get.json"), "utf8"),
) as { parameters: Record<string, string>; responses: { "200": { body: unknown } } };
const exampleVm = vmGet.responses["200"].body;

describe("the coordinator reads the VirtualMachines_Get example", () => {
  const stub = useHttpStub();
  let arm: ArmClient;
  beforeEach(() => {
    arm = createArmClient({ endpoint: stub.url, credential: recordingCredential() });
  });
  afterEach(() => arm.close());

  it("uses the example's api-version, and finds the availability set the acknowledge is scoped to", async () => {
    expect(vmGet.parameters["api-version"]).toBe(COMPUTE_API_VERSION);
    const id =
      "/subscriptions/sub-1/resourceGroups/myResourceGroup/providers/Microsoft.Compute/virtualMachines/myVM";
    stub.on("GET", id, { status: 200, body: exampleVm });
    const r = await resolveScope(arm, { name: "myVM", vmId: "v", resourceId: id });
    expect(r).toEqual({
      ok: true,
      value: {
        subscriptionId: "{subscription-id}",
        resourceGroup: "myResourceGroup",
        resourceType: "availabilitySets",
        name: "my-AvailabilitySet",
      },
    });
    expect(stub.requestsTo("GET", id)[0]?.query).toEqual({ "api-version": COMPUTE_API_VERSION });
  });
});

describe("the simulator's VM has the example's shape where the coordinator reads it", () => {
  const ctx = useContractSim();

  it("a VM of an availability set: vmId, availabilitySet, networkProfile as in the example", async () => {
    const path = `${ctx.sim.arm.resourceGroupId()}/providers/Microsoft.Compute/virtualMachines/web-0?api-version=${COMPUTE_API_VERSION}`;
    const vm = await armCall(ctx.sim.armUrl, ctx.token, "GET", path);
    expect(vm.status).toBe(200);
    // What the simulator leaves out: nothing the coordinator reads.
    expect(missingPaths(exampleVm, vm.body)).toEqual([
      "tags",
      "etag",
      "properties.proximityPlacementGroup",
      "properties.storageProfile",
      "properties.applicationProfile",
      "properties.userData",
      "properties.osProfile.adminUsername",
      "properties.osProfile.windowsConfiguration",
      "properties.osProfile.secrets",
      "properties.diagnosticsProfile",
      "properties.extensionsTimeBudget",
      "properties.timeCreated",
      "resources",
      "managedBy",
    ]);
  });
});
