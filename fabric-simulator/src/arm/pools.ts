import { z } from "zod";
import type { FabricState } from "../model/types";
import { AdminState, type LoadBalancerSpec } from "../topology/armTopology";
import { stableUuid, type VmRecord } from "../topology/topology";
import { type ArmAnswer, armError } from "./errors";
import { type ArmScope, IPCONFIG_NAME, ipConfigId, loadBalancerId, poolId, sameId } from "./ids";
import type { PoolState } from "./types";
import { poolVms } from "./world";

/**
 * A load balancer backend pool as Microsoft.Network serves it (2024-05-01 shape: NIC-based
 * addresses with `networkInterfaceIPConfiguration` and `adminState`), and the one change the
 * simulator accepts through PUT: an address's admin state.
 */

export interface PoolContext {
  readonly scope: ArmScope;
  readonly state: FabricState;
  readonly lb: LoadBalancerSpec;
  readonly pool: LoadBalancerSpec["pools"][number];
  readonly poolState: PoolState;
  readonly generation: number;
}

/** A weak etag as Network answers it (`W/"<guid>"`), new with every PUT and every generation. */
export function poolEtag(c: PoolContext): string {
  const { loadBalancer, pool, version } = c.poolState;
  return `W/"${stableUuid("pool", loadBalancer, pool, String(version), String(c.generation))}"`;
}

/**
 * Azure generates the address names of a NIC-based pool; clients should match addresses by
 * `networkInterfaceIPConfiguration.id`. The simulator's names are `<vm>_ipconfig1`.
 */
export const addressName = (vm: VmRecord) => `${vm.name}_${IPCONFIG_NAME}`;

export const adminStateOf = (c: PoolContext, vm: string) =>
  c.poolState.adminStates[vm] ?? c.pool.adminState;

export function renderPool(c: PoolContext): unknown {
  const vms = poolVms(c.state, c.pool);
  const lbId = loadBalancerId(c.scope, c.lb.name);
  return {
    name: c.pool.name,
    id: poolId(c.scope, c.lb.name, c.pool.name),
    etag: poolEtag(c),
    type: "Microsoft.Network/loadBalancers/backendAddressPools",
    properties: {
      provisioningState: "Succeeded",
      loadBalancerBackendAddresses: vms.map((vm) => ({
        name: addressName(vm),
        properties: {
          networkInterfaceIPConfiguration: { id: ipConfigId(c.scope, vm) },
          adminState: adminStateOf(c, vm.name),
        },
      })),
      backendIPConfigurations: vms.map((vm) => ({ id: ipConfigId(c.scope, vm) })),
      loadBalancingRules: [{ id: `${lbId}/loadBalancingRules/${c.pool.name}-rule` }],
    },
  };
}

/** Lenient like ARM: read-only and unknown properties a client echoes back are ignored. */
const PutBody = z.object({
  properties: z.object({
    loadBalancerBackendAddresses: z.array(
      z.object({
        name: z.string().min(1),
        properties: z
          .object({
            networkInterfaceIPConfiguration: z.object({ id: z.string() }).optional(),
            adminState: z.string().optional(),
            ipAddress: z.unknown().optional(),
            virtualNetwork: z.unknown().optional(),
            subnet: z.unknown().optional(),
          })
          .optional(),
      }),
    ),
  }),
});

const badRequest = (message: string) => armError(400, "InvalidRequestFormat", message);

/** True when `ifMatch` (absent, `*`, or the current etag, weak or not) allows the write. */
export function etagMatches(ifMatch: string | undefined, etag: string): boolean {
  if (ifMatch === undefined) return true;
  const strip = (e: string) => e.trim().replace(/^W\//, "");
  return ifMatch.split(",").some((t) => t.trim() === "*" || strip(t) === strip(etag));
}

/**
 * A PUT of the whole pool. It may only change the admin state of the addresses already there;
 * adding or removing addresses, IP-based addresses, or pointing one at another ipconfig is
 * refused (the simulator models NIC membership from the topology). An address without
 * `adminState` is `None`, as a PUT replaces the whole pool.
 */
export function putPool(
  c: PoolContext,
  body: unknown,
  ifMatch: string | undefined,
): { ok: true; poolState: PoolState } | { ok: false; answer: ArmAnswer } {
  const etag = poolEtag(c);
  if (!etagMatches(ifMatch, etag)) {
    return {
      ok: false,
      answer: armError(
        412,
        "PreconditionFailed",
        `The If-Match etag '${ifMatch}' does not match the current etag '${etag}' of ${poolId(c.scope, c.lb.name, c.pool.name)}.`,
      ),
    };
  }
  const parsed = PutBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      answer: badRequest(
        `The backend pool body is not valid at '${issue?.path.join(".") ?? ""}': ${issue?.message ?? "invalid"}.`,
      ),
    };
  }
  const vms = poolVms(c.state, c.pool);
  const given = parsed.data.properties.loadBalancerBackendAddresses;
  const adminStates: Record<string, AdminState> = { ...c.poolState.adminStates };
  const seen = new Set<string>();
  for (const a of given) {
    const vm = vms.find((v) => sameId(addressName(v), a.name));
    if (!vm)
      return {
        ok: false,
        answer: badRequest(
          `Adding backend address '${a.name}' is not supported by the simulator; only adminState can change.`,
        ),
      };
    if (seen.has(vm.name))
      return { ok: false, answer: badRequest(`Backend address '${a.name}' appears twice.`) };
    seen.add(vm.name);
    const p = a.properties ?? {};
    if (p.ipAddress !== undefined || p.virtualNetwork !== undefined || p.subnet !== undefined) {
      return {
        ok: false,
        answer: badRequest(
          `Backend address '${a.name}' is NIC-based; ipAddress, virtualNetwork and subnet cannot be set.`,
        ),
      };
    }
    const ipc = p.networkInterfaceIPConfiguration?.id;
    if (ipc !== undefined && !sameId(ipc, ipConfigId(c.scope, vm))) {
      return {
        ok: false,
        answer: badRequest(
          `Backend address '${a.name}' must keep networkInterfaceIPConfiguration ${ipConfigId(c.scope, vm)}.`,
        ),
      };
    }
    const state = AdminState.safeParse(p.adminState ?? "None");
    if (!state.success) {
      return {
        ok: false,
        answer: badRequest(`adminState '${String(p.adminState)}' is not one of None, Up, Down.`),
      };
    }
    adminStates[vm.name] = state.data;
  }
  const missing = vms.filter((v) => !seen.has(v.name));
  if (missing.length > 0) {
    return {
      ok: false,
      answer: badRequest(
        `Removing backend addresses (${missing.map(addressName).join(", ")}) is not supported by the simulator; only adminState can change.`,
      ),
    };
  }
  return { ok: true, poolState: { ...c.poolState, version: c.poolState.version + 1, adminStates } };
}
