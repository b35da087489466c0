import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { sameResourceId } from "../auth/resourceId";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";
import { isResourceType, parseResourceId, type ResourceId, resourcePath } from "./resourceId";
import { getVirtualMachine, isVirtualMachineId } from "./virtualMachine";

/**
 * Taking a VM out of its load balancers' rotation before it drains, and back after: Azure Load
 * Balancer's per-address admin state. `Down` "ignores the health probe and doesn't allow new
 * connections" while established TCP connections persist; `None` gives the decision back to the
 * probe. Azure documents it only where a health probe is configured on the load-balancing rules
 * ("Admin state will only take effect when there's a health probe configured"), not for
 * inbound NAT rules ("Admin state isn't supported with inbound NAT rule") (load-balancer
 * admin-state-overview). The state lives on the backend pool's `loadBalancerBackendAddresses[]`
 * entry (`properties.adminState`) and is written by a PUT of the whole pool, as
 * cloud-provider-azure's admin-state design does for NIC- and IP-based pools alike.
 *
 * api-versions: Microsoft.Network 2024-05-01, a GA version with `adminState` on backend
 * addresses; a Uniform scale set instance's NIC is served under Microsoft.Compute by
 * `NetworkInterfaces_GetVirtualMachineScaleSetNetworkInterface`, whose documented version is
 * 2018-10-01 (Azure.ResourceManager.Network: "Default Api Version: 2018-10-01").
 */
export const NETWORK_API_VERSION = "2024-05-01";
export const SCALE_SET_NIC_API_VERSION = "2018-10-01";

export type AdminState = "None" | "Up" | "Down";
/** What a read may find: the three above, or `Drain`, which newer Network SDKs list too. */
export type ObservedAdminState = AdminState | "Drain";
const KNOWN: ObservedAdminState[] = ["None", "Up", "Down", "Drain"];

export interface BackendMembership {
  poolId: string;
  ipConfigurationId: string;
}

const SubResource = z.looseObject({ id: z.string() });
const NetworkInterface = z.looseObject({
  properties: z
    .looseObject({
      ipConfigurations: z
        .array(
          z.looseObject({
            id: z.string(),
            properties: z
              .looseObject({ loadBalancerBackendAddressPools: z.array(SubResource).optional() })
              .optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
const BackendAddressPool = z.looseObject({
  etag: z.string().optional(),
  properties: z
    .looseObject({
      loadBalancerBackendAddresses: z
        .array(
          z.looseObject({
            name: z.string().optional(),
            properties: z
              .looseObject({
                adminState: z.string().optional(),
                networkInterfaceIPConfiguration: SubResource.optional(),
              })
              .optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
type BackendAddressPool = z.infer<typeof BackendAddressPool>;

/** Every (backend pool, NIC ip configuration) pair of the VM: the VM's NICs, then each NIC. */
export async function backendMemberships(
  arm: ArmClient,
  vm: { resourceId: string },
): Promise<Result<BackendMembership[], ArmError>> {
  const id = parseResourceId(vm.resourceId);
  if (!id || !isVirtualMachineId(id))
    return invalid(`${vm.resourceId} is not a VM or scale set instance id`);
  const got = await getVirtualMachine(arm, id, "backendMemberships");
  if (!got.ok) return got;
  const out: BackendMembership[] = [];
  const seen = new Set<string>();
  for (const { id: nicId } of got.value.body.properties?.networkProfile?.networkInterfaces ?? []) {
    const nic = parseResourceId(nicId);
    const apiVersion = nic && nicApiVersion(nic);
    if (!nic || !apiVersion) return invalid(`${nicId} is not a network interface id`);
    const read = await arm.request({
      method: "GET",
      path: resourcePath(nic),
      apiVersion,
      schema: NetworkInterface,
      operation: "getNetworkInterface",
    });
    if (!read.ok) return read;
    for (const ipConfig of read.value.body.properties?.ipConfigurations ?? [])
      for (const pool of ipConfig.properties?.loadBalancerBackendAddressPools ?? []) {
        const key = `${pool.id}|${ipConfig.id}`.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ poolId: pool.id, ipConfigurationId: ipConfig.id });
      }
  }
  return { ok: true, value: out };
}

/** A standalone or Flexible VM's NIC is a Network resource; a Uniform instance's hangs off the instance. */
function nicApiVersion(nic: ResourceId): string | undefined {
  if (isResourceType(nic, "Microsoft.Network", ["networkInterfaces"])) return NETWORK_API_VERSION;
  const scaleSetNic = ["virtualMachineScaleSets", "virtualMachines", "networkInterfaces"];
  if (isResourceType(nic, "Microsoft.Compute", scaleSetNic)) return SCALE_SET_NIC_API_VERSION;
  return undefined;
}

export async function readAdminState(
  arm: ArmClient,
  poolId: string,
  ipConfigurationId: string,
): Promise<Result<{ state: ObservedAdminState }, ArmError>> {
  const read = await readPool(arm, poolId, ipConfigurationId);
  return read.ok ? { ok: true, value: { state: read.value.state } } : read;
}

export interface AdminStateChange {
  before: ObservedAdminState;
  after: ObservedAdminState;
  /** `unchanged`: already in that state; `refused`: `onlyIf` did not hold, nothing written. */
  outcome: "changed" | "unchanged" | "refused";
}

/** How often the read-modify-write starts over after a 412 (someone else wrote the pool between). */
const MAX_ROUNDS = 3;

/**
 * Sets one address's admin state: GET the pool, PUT it back with only that address's
 * `adminState` changed and `If-Match` on the etag read, so a concurrent write to the pool (an
 * operator, AKS, another coordinator instance) is never overwritten; a 412 starts over from a
 * fresh read. With `onlyIf`, nothing is written unless the state read is that one: a restore to
 * `None` after maintenance leaves alone an address an operator set meanwhile. The PUT is a
 * long-running operation on Azure's side; its answer already carries the new state, and its
 * completion is not awaited here.
 */
export async function setAdminState(
  arm: ArmClient,
  poolId: string,
  ipConfigurationId: string,
  state: AdminState,
  options?: { onlyIf?: AdminState },
): Promise<Result<AdminStateChange, ArmError>> {
  for (let round = 1; ; round++) {
    const read = await readPool(arm, poolId, ipConfigurationId);
    if (!read.ok) return read;
    const { pool, index, state: before, etag, path } = read.value;
    if (options?.onlyIf !== undefined && before !== options.onlyIf)
      return { ok: true, value: { before, after: before, outcome: "refused" } };
    if (before === state)
      return { ok: true, value: { before, after: before, outcome: "unchanged" } };
    const body = structuredClone(pool);
    const address = body.properties?.loadBalancerBackendAddresses?.[index];
    if (!address) return notFound(poolId, ipConfigurationId);
    address.properties = { ...address.properties, adminState: state };
    const written = await arm.request({
      method: "PUT",
      path,
      apiVersion: NETWORK_API_VERSION,
      body,
      ...(etag ? { ifMatch: etag } : {}),
      schema: BackendAddressPool,
      operation: "setAdminState",
    });
    if (!written.ok) {
      if (written.error.status === 412 && round < MAX_ROUNDS) continue;
      return written;
    }
    const echoed = stateOf(written.value.body, ipConfigurationId);
    const after = echoed && echoed.index >= 0 && echoed.state ? echoed.state : state;
    return { ok: true, value: { before, after, outcome: "changed" } };
  }
}

async function readPool(arm: ArmClient, poolId: string, ipConfigurationId: string) {
  const id = parseResourceId(poolId);
  if (!id || !isResourceType(id, "Microsoft.Network", ["loadBalancers", "backendAddressPools"]))
    return invalid(`${poolId} is not a load balancer backend pool id`);
  const path = resourcePath(id);
  const got = await arm.request({
    method: "GET",
    path,
    apiVersion: NETWORK_API_VERSION,
    schema: BackendAddressPool,
    operation: "getBackendAddressPool",
  });
  if (!got.ok) return got;
  const found = stateOf(got.value.body, ipConfigurationId);
  if (!found || found.index < 0) return notFound(poolId, ipConfigurationId);
  if (!found.state)
    return {
      ok: false as const,
      error: localError(
        "InvalidResponse",
        `admin state "${found.raw}" of ${ipConfigurationId} is none of ${KNOWN.join(", ")}`,
        got.value.attempts,
      ),
    };
  // The header is the etag ARM checks If-Match against; the body's `etag` is the same value
  // where the header is missing.
  const etag = got.value.etag ?? got.value.body.etag;
  return {
    ok: true as const,
    value: { pool: got.value.body, index: found.index, state: found.state, etag, path },
  };
}

/** The address whose NIC ip configuration is `ipConfigurationId`, and its state (absent: `None`). */
function stateOf(pool: BackendAddressPool, ipConfigurationId: string) {
  const addresses = pool.properties?.loadBalancerBackendAddresses ?? [];
  const index = addresses.findIndex((a) => {
    const ref = a.properties?.networkInterfaceIPConfiguration?.id;
    return ref !== undefined && sameResourceId(ref, ipConfigurationId);
  });
  const raw = addresses[index]?.properties?.adminState ?? "None";
  const state = KNOWN.find((k) => k.toLowerCase() === raw.toLowerCase());
  return { index, raw, state };
}

function invalid(message: string) {
  return { ok: false as const, error: localError("InvalidResourceId", message) };
}

function notFound(poolId: string, ipConfigurationId: string) {
  return {
    ok: false as const,
    error: localError(
      "BackendAddressNotFound",
      `backend pool ${poolId} has no address for ${ipConfigurationId}`,
    ),
  };
}
