import type { Instant } from "../model/types";
import type { AdminState } from "../topology/armTopology";
import type { ChangeSafetyState } from "./changeSafety";
import type { ArmFaultStatus, MaintenanceBehaviour } from "./commands";
import type { ResourceGraphQuotaState } from "./resourceGraphQuota";

/**
 * What the loopback Azure Resource Manager knows beyond the fabric: role assignments, injected
 * faults, load balancer admin states and simulated traffic, alerts, Resource Graph's query quota
 * (the request log is kept by the shell beside it, with the same lifetime). It lives as long as
 * one fabric generation (a reset or a new topology starts a fresh one), unlike the identities and
 * their tokens, which belong to Entra ID and outlive resets.
 */

/** An Azure RBAC role assignment, reduced to what decides a request: who, where, which actions. */
export interface RoleAssignment {
  readonly id: string;
  readonly principalId: string;
  /** An ARM id: the assignment covers it and everything under it. */
  readonly scope: string;
  /** A label (e.g. `Contributor`); `actions` decide. */
  readonly role: string;
  /** Allowed actions; `*` matches any run of characters (e.g. `*`, `Microsoft.Network/*`). */
  readonly actions: readonly string[];
}

/** The next `remaining` ARM requests (whose path contains `pathContains`) answer `status`. */
export interface ArmFault {
  readonly id: number;
  readonly status: ArmFaultStatus;
  readonly remaining: number;
  readonly pathContains?: string;
  readonly method?: string;
  /** 429 only: the Retry-After header, in seconds. */
  readonly retryAfterSeconds?: number;
  readonly served: number;
}

/** One ARM request as the simulator answered it: which identity called, and what it got. */
export interface ArmRequest {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly apiVersion: string | null;
  /** The caller's principal, or null when the request carried no token the simulator issued. */
  readonly principalId: string | null;
  readonly status: number;
  /** Set when an injected fault answered. */
  readonly fault?: boolean;
  readonly at: Instant;
}

/** One backend pool: its admin state per VM (the address of the VM's NIC ipconfig). */
export interface PoolState {
  readonly loadBalancer: string;
  readonly pool: string;
  /** Bumped by every PUT: the etag is derived from it. */
  readonly version: number;
  readonly adminStates: Readonly<Record<string, AdminState>>;
}

export interface BackendCounts {
  /** Simulated requests the load balancer sent to this VM. */
  readonly routed: number;
  /** Of those, the ones that reached the VM while it was down (in a Started event). */
  readonly dropped: number;
}

export interface LoadBalancerTraffic {
  /** Simulated ms up to which traffic has been generated. */
  readonly atMs: number;
  /** Round-robin position. */
  readonly cursor: number;
  readonly total: number;
  /** Requests with no backend to go to (every backend Down or probed down). */
  readonly unrouted: number;
  readonly perVm: Readonly<Record<string, BackendCounts>>;
}

export type MonitorCondition = "Fired" | "Resolved";
export type AlertState = "New" | "Acknowledged" | "Closed";

/** One alert instance of an Azure Monitor alert rule (a rule fires again only once resolved). */
export interface AlertInstance {
  readonly alertId: string;
  readonly rule: string;
  readonly severity: string;
  readonly description?: string;
  readonly monitorCondition: MonitorCondition;
  readonly alertState: AlertState;
  readonly startedAtMs: number;
  readonly modifiedAtMs: number;
  readonly resolvedAtMs?: number;
}

export interface ArmWorld {
  /** The fabric generation this world belongs to. */
  readonly generation: number;
  readonly roleAssignments: readonly RoleAssignment[];
  readonly faults: readonly ArmFault[];
  readonly nextFaultId: number;
  /** Keyed by `poolKey(lb, pool)`. */
  readonly pools: Readonly<Record<string, PoolState>>;
  readonly traffic: Readonly<Record<string, LoadBalancerTraffic>>;
  readonly alerts: readonly AlertInstance[];
  /** Resource Graph's per-caller query quota: its configuration and each caller's window. */
  readonly resourceGraph: ResourceGraphQuotaState;
  /** How the Maintenance RP answers acknowledges (control API `PUT /arm/maintenance`). */
  readonly maintenance: MaintenanceBehaviour;
  /** Azure Change Safety: its policy, issued tokens, change records (control API `PUT /arm/changeSafety`). */
  readonly changeSafety: ChangeSafetyState;
}

export const poolKey = (lb: string, pool: string) => `${lb.toLowerCase()}/${pool.toLowerCase()}`;
