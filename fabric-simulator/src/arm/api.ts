import { unwrap } from "../model/controlResult";
import type { AdminState } from "../topology/armTopology";
import type {
  AuditedWrite,
  ChangeSafetyPolicy,
  ChangeSafetyPolicyInput,
  GuardedWrite,
} from "./changeSafety";
import type {
  ArmFaultInput,
  FireAlertInput,
  GrantInput,
  MaintenanceBehaviour,
  MaintenanceBehaviourInput,
  RegisterIdentityInput,
  RevokeInput,
} from "./commands";
import type { ArmEngine } from "./engine";
import type { ManagedIdentity } from "./identity";
import { resourceGroupId } from "./ids";
import { type LoadBalancerView, loadBalancerViews, setAdminState } from "./loadBalancers";
import type { ResourceGraphQuotaConfig, ResourceGraphQuotaInput } from "./resourceGraphQuota";
import type { AlertInstance, ArmFault, ArmRequest, RoleAssignment } from "./types";

/** The loopback ARM as tests drive it in-process; failures throw `FabricControlError`. */
export interface ArmApi {
  /** `http://127.0.0.1:<port>`: ARM's paths at the root, as on https://management.azure.com. */
  readonly url: string;
  /** The simulated resource group's id, the default scope of `grant`. */
  resourceGroupId(): string;
  /** Every ARM request with the identity that made it (`sinceSeq`: only newer ones). */
  requests(sinceSeq?: number): ArmRequest[];
  /** The next `count` (default 1) matching ARM requests answer `status`. */
  injectFault(fault: ArmFaultInput): ArmFault;
  faults(): readonly ArmFault[];
  clearFaults(): number;
  grant(assignment: GrantInput): RoleAssignment;
  /** Returns how many assignments were removed. */
  revoke(which: RevokeInput): number;
  roleAssignments(): readonly RoleAssignment[];
  /** A user-assigned identity the token endpoint then serves for its `client_id`. */
  registerIdentity(identity: RegisterIdentityInput): ManagedIdentity;
  identities(): ManagedIdentity[];
  /**
   * Resource Graph's per-caller query quota until the next reset (default 15 queries per 5 s of
   * real time); every caller starts a fresh window.
   */
  setResourceGraphQuota(quota: ResourceGraphQuotaInput): ResourceGraphQuotaConfig;
  /** How the Maintenance RP answers acknowledges until the next reset (fields left out: defaults). */
  setMaintenance(behaviour: MaintenanceBehaviourInput): MaintenanceBehaviour;
  maintenance(): MaintenanceBehaviour;
  /**
   * Azure Change Safety until the next reset (changeSafety.ts): a policy with external
   * evaluation that denies or audits writes without a valid policy token.
   */
  setChangeSafety(policy: ChangeSafetyPolicyInput): ChangeSafetyPolicy;
  /** Its policy, the tokens issued (tests look for them where they must not be), audits, records. */
  changeSafety(): ChangeSafetyView;
}

export interface ChangeSafetyView {
  policy: ChangeSafetyPolicy;
  tokens: string[];
  audited: readonly AuditedWrite[];
  guarded: readonly GuardedWrite[];
  records: Array<Readonly<Record<string, unknown>>>;
}

export function armApi(arm: ArmEngine, url: string): ArmApi {
  return {
    url,
    resourceGroupId: () => resourceGroupId(arm.topology()),
    requests: (sinceSeq) => arm.requests(sinceSeq),
    injectFault: (fault) => unwrap(arm.injectFault(fault)),
    faults: () => arm.faults(),
    clearFaults: () => arm.clearFaults(),
    grant: (assignment) => unwrap(arm.grant(assignment)),
    revoke: (which) => unwrap(arm.revoke(which)),
    roleAssignments: () => arm.roleAssignments(),
    registerIdentity: (identity) => unwrap(arm.identity.register(identity)),
    identities: () => arm.identity.list(),
    setResourceGraphQuota: (quota) => unwrap(arm.setResourceGraphQuota(quota)),
    setMaintenance: (behaviour) => unwrap(arm.setMaintenance(behaviour)),
    maintenance: () => arm.maintenance(),
    setChangeSafety: (policy) => unwrap(arm.setChangeSafety(policy)),
    changeSafety: () => {
      const s = arm.changeSafety();
      return {
        policy: s.policy,
        tokens: Object.keys(s.tokens),
        audited: s.audited,
        guarded: s.guarded,
        records: Object.values(s.records),
      };
    },
  };
}

/** Load balancers and alerts, the parts of the Azure around the VMs a demo shows. */
export interface AzureSurroundings {
  /** Backends, admin states and simulated traffic counts per load balancer. */
  loadBalancers(): LoadBalancerView[];
  /** An operator's admin-state change (as in the portal); returns the load balancer after it. */
  setAdminState(
    loadBalancer: string,
    pool: string,
    vm: string,
    adminState: AdminState,
  ): LoadBalancerView;
  alerts(): readonly AlertInstance[];
  fireAlert(rule: string, options?: Omit<FireAlertInput, "rule">): AlertInstance;
  resolveAlert(rule: string): AlertInstance;
}

export function surroundings(arm: ArmEngine): AzureSurroundings {
  return {
    loadBalancers: () => loadBalancerViews(arm),
    setAdminState: (loadBalancer, pool, vm, adminState) =>
      unwrap(setAdminState(arm, { loadBalancer, pool, vm, adminState })),
    alerts: () => arm.alerts(),
    fireAlert: (rule, options) => unwrap(arm.fireAlert({ ...options, rule })),
    resolveAlert: (rule) => unwrap(arm.resolveAlert({ rule })),
  };
}
