import { describe, expect, it } from "vitest";
import { nodeOfVm } from "../../src/kubernetes/names";
import type { NodeInfo } from "../../src/kubernetes/objects";

/** Which node is this VM: exactly one, or an error that names every candidate. */

const uniform =
  "/subscriptions/s/resourceGroups/MC_rg_aks_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-12345678-vmss/virtualMachines/10";
const node = (name: string, providerID?: string): NodeInfo => ({
  name,
  ...(providerID ? { providerID } : {}),
  unschedulable: false,
  labels: {},
  annotations: {},
});

describe("nodeOfVm", () => {
  it("finds the one node whose spec.providerID is this VM's", () => {
    const nodes = [
      node("aks-nodepool1-12345678-vmss000001", `azure://${uniform.replace(/10$/, "1")}`),
      node("aks-nodepool1-12345678-vmss00000a", `azure://${uniform}`),
      node("virtual-node-aci-linux"),
    ];
    expect(nodeOfVm(nodes, uniform)).toEqual({ ok: true, value: nodes[1] });
  });

  it("finds none when no node has it", () => {
    expect(nodeOfVm([node("a", "azure:///other")], uniform)).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it("refuses two nodes whose providerIDs differ only in case, naming both", () => {
    const nodes = [
      node("aks-nodepool1-12345678-vmss00000a", `azure://${uniform}`),
      node("aks-nodepool1-12345678-vmss00000a-stale", `azure://${uniform.toLowerCase()}/`),
    ];
    expect(nodeOfVm(nodes, uniform)).toEqual({
      ok: false,
      error:
        "2 Kubernetes nodes have this VM's spec.providerID (aks-nodepool1-12345678-vmss00000a, aks-nodepool1-12345678-vmss00000a-stale): refusing to pick one; delete the stale Node object",
    });
  });
});
