import type { VmIdentity } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import { isAdvisoryEvent } from "../model/eventTypes";
import { type ClusterState, type EventRecord, memberKey, type Readiness } from "../model/state";

/**
 * Which VMs the coordinator drains itself (policy `agentless`, docs/control-plane.md): those
 * that never had a relay, i.e. have no member row. A VM whose relay registered once stays a relay
 * VM (a silent relay blocks as before: it may be mid-drain); one whose row does not read is
 * neither (its next report rewrites it). With `agentless` off there are none.
 */
export function isAgentless(state: ClusterState, mk: string, policy: Policy): boolean {
  return (
    policy.agentless.enabled &&
    state.members[mk] === undefined &&
    state.unreadableMembers?.[mk] === undefined
  );
}

/**
 * The event's VMs without a relay whose hooks the coordinator runs, as `Resources` spells them:
 * none for an advisory event, which nothing drains for.
 */
export function agentlessVms(state: ClusterState, e: EventRecord, policy: Policy): string[] {
  if (isAdvisoryEvent(e)) return [];
  return e.resources.filter((vm) => isAgentless(state, memberKey(vm), policy));
}

/** A VM without a relay that the coordinator drained owes its recover hook (when one is set). */
export function agentlessRecoverOwed(
  state: ClusterState,
  mk: string,
  row: Readiness,
  policy: Policy,
): boolean {
  return (
    policy.agentless.recover !== undefined && isAgentless(state, mk, policy) && row.drain !== null
  );
}

const SCOPE =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/(availabilitySets|virtualMachineScaleSets|virtualMachines)\/([^/]+)$/i;

/**
 * What stands for the member row of a VM without a relay, from the scope Azure published its
 * event for: its ARM id (where the load-balancer drain finds its NICs) and group. A VM of an
 * availability set is `…/virtualMachines/{name}` in the set's resource group; a scale-set VM is
 * a Uniform instance `…/virtualMachineScaleSets/{ss}/virtualMachines/{id}` when its name is
 * `{ss}_{id}` (Uniform's naming), else a Flexible VM `…/virtualMachines/{name}` (inferred from
 * the naming conventions, not from an Azure document: docs/control-plane.md). vmId is unknown.
 */
export function agentlessIdentity(e: EventRecord, vmName: string): VmIdentity | null {
  const m = e.published ? SCOPE.exec(e.published.scope) : null;
  if (!m) return null;
  const [, sub, rg, kind, name] = m as unknown as [string, string, string, string, string];
  const base = `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Compute`;
  let resourceId = `${base}/virtualMachines/${vmName}`;
  const uniform = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}_(\\d+)$`, "i").exec(
    vmName,
  );
  if (kind.toLowerCase() === "virtualmachinescalesets" && uniform)
    resourceId = `${base}/virtualMachineScaleSets/${name}/virtualMachines/${uniform[1]}`;
  return {
    name: vmName,
    vmId: "",
    resourceId,
    subscriptionId: sub,
    resourceGroupName: rg,
    ...(kind.toLowerCase() === "virtualmachinescalesets" ? { vmScaleSetName: name } : {}),
  };
}
