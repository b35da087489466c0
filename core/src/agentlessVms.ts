import type { Policy } from "@quiesce/protocol/policy";
import { type ClusterState, type EventRecord, memberKey, type Readiness } from "./state";

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

/** The event's VMs without a relay, as `Resources` spells them. */
export function agentlessVms(state: ClusterState, e: EventRecord, policy: Policy): string[] {
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
