import type { FabricState } from "../../model/types";
import { stableUuid, type VmRecord } from "../../topology/topology";
import { type ArmAnswer, armError, ok, resourceNotFound } from "../errors";
import {
  IPCONFIG_NAME,
  ipConfigId,
  isUniformInstance,
  nicId,
  nicName,
  poolId,
  sameName,
} from "../ids";
import { poolContext, putPoolFromArm } from "../loadBalancers";
import { renderPool } from "../pools";
import { loadBalancers, poolVms } from "../world";
import type { ArmCall } from "./call";
import { findPlainVm, scaleSetInstanceOr404 } from "./compute";

/**
 * Microsoft.Network reads and the backend pool write: a VM's NIC (standalone form, 2024-05-01,
 * and the scale-set instance form, which Azure documents only at api-version 2018-10-01), whose
 * ipconfig names the pools it is in, and the pool with its addresses' admin state.
 */

/** A stable private address per VM: 10.0.x.y in topology order. */
function privateIp(state: FabricState, vm: VmRecord): string {
  const i = Object.keys(state.vms).indexOf(vm.name) + 4;
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

/** The pools whose backends include the VM. */
function poolsOf(state: FabricState, vm: VmRecord): string[] {
  const out: string[] = [];
  for (const lb of loadBalancers(state.topology)) {
    for (const pool of lb.pools) {
      if (poolVms(state, pool).some((v) => v.name === vm.name))
        out.push(poolId(state.topology, lb.name, pool.name));
    }
  }
  return out;
}

export function renderNic(state: FabricState, vm: VmRecord): unknown {
  const scope = state.topology;
  const etag = `W/"${stableUuid("nic", vm.resourceId)}"`;
  return {
    name: nicName(vm),
    id: nicId(scope, vm),
    etag,
    type: "Microsoft.Network/networkInterfaces",
    location: vm.location,
    properties: {
      provisioningState: "Succeeded",
      resourceGuid: stableUuid("nic guid", vm.resourceId),
      ipConfigurations: [
        {
          name: IPCONFIG_NAME,
          id: ipConfigId(scope, vm),
          etag,
          type: "Microsoft.Network/networkInterfaces/ipConfigurations",
          properties: {
            provisioningState: "Succeeded",
            privateIPAddress: privateIp(state, vm),
            privateIPAllocationMethod: "Dynamic",
            privateIPAddressVersion: "IPv4",
            primary: true,
            loadBalancerBackendAddressPools: poolsOf(state, vm).map((id) => ({ id })),
          },
        },
      ],
      primary: true,
      virtualMachine: { id: vm.resourceId },
    },
  };
}

export function getNic(call: ArmCall): ArmAnswer {
  const state = call.arm.fabric.state();
  const name = call.params.nicName as string;
  const vm = Object.values(state.vms).find(
    (v) => !isUniformInstance(v) && sameName(nicName(v), name),
  );
  if (!vm || !findPlainVm(state, vm.name)) {
    return resourceNotFound(
      "Microsoft.Network/networkInterfaces",
      name,
      state.topology.resourceGroupName,
    );
  }
  return ok(renderNic(state, vm));
}

export function getScaleSetNic(call: ArmCall): ArmAnswer {
  const vm = scaleSetInstanceOr404(call);
  if ("status" in vm) return vm;
  if (!sameName(nicName(vm), call.params.nicName as string)) {
    return armError(404, "NotFound", `Resource ${call.path} not found.`);
  }
  return ok(renderNic(call.arm.fabric.state(), vm));
}

function poolOr404(call: ArmCall) {
  const { lbName, poolName } = call.params as { lbName: string; poolName: string };
  const c = poolContext(call.arm, lbName, poolName);
  if (c.found === "none") {
    const rg = call.arm.topology().resourceGroupName;
    return resourceNotFound("Microsoft.Network/loadBalancers", lbName, rg);
  }
  if (c.found === "loadBalancer")
    return armError(404, "NotFound", `Resource ${call.path} not found.`);
  return c.context;
}

export function getPool(call: ArmCall): ArmAnswer {
  const c = poolOr404(call);
  if ("status" in c) return c;
  return ok(renderPool(c));
}

/**
 * The write is synchronous here: the answer is 200 with provisioningState Succeeded. Azure's PUT
 * is a long-running operation (it may answer 201/200 with an Azure-AsyncOperation header to poll).
 */
export async function putPool(call: ArmCall): Promise<ArmAnswer> {
  const body = await call.body();
  // Read the pool only now, after the last await: the etag check and the write then see one
  // state, so two concurrent PUTs with the same If-Match cannot both succeed.
  const c = poolOr404(call);
  if ("status" in c) return c;
  if (!body.ok) return body.answer;
  const r = putPoolFromArm(call.arm, c, body.value, call.ifMatch);
  if (!r.ok) return r.answer;
  return ok(renderPool(r.context));
}
