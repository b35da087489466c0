import { withEntry } from "@quiesce/protocol";
import type { VmIdentity } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import { DELETES_VMS, isAdvisoryEvent } from "../model/eventTypes";
import type {
  BackendMembership,
  ClusterState,
  EventRecord,
  LoadBalancerStep,
  Readiness,
  Transition,
} from "../model/state";
import type { Blocker } from "../model/types";
import { agentlessIdentity, isAgentless } from "./agentlessVms";

/**
 * Load-balancer drain (policy loadBalancerDrain, docs/control-plane.md): before a VM counts as
 * drained, the coordinator sets its backend addresses' admin state to Down on every Azure Load
 * Balancer pool it is in, and waits `settleSeconds` for connections to finish; after the event
 * left the document and the VM's recover hook succeeded, it puts back the admin state each
 * address had before. It never touches an address it did not take Down: one already Down stays
 * as it was, before and after. The step lives in the VM's readiness row, written before and after
 * each ARM write, so a coordinator that crashes in between finishes it from storage.
 */

const RETRY_FAILED_MS = 30_000;

/** Why a VM whose drain succeeded does not count as drained yet (null: it does). */
export function loadBalancerBlocker(
  row: Readiness | undefined,
  vm: string,
  now: number,
  policy: Policy,
): Blocker | null {
  if (!policy.loadBalancerDrain.enabled) return null;
  const lb = row?.loadBalancer;
  const blocker = (detail: string): Blocker => ({ vm, reason: "loadBalancerDrain", detail });
  if (!lb || lb.state === "goingDown")
    return blocker("taking it out of its load balancer (admin state Down)");
  if (lb.state === "failed")
    return blocker(`could not take it out of its load balancer: ${lb.error}; retried every 30 s`);
  if (lb.state === "down" && lb.downAt !== null) {
    const settled = lb.downAt + policy.loadBalancerDrain.settleSeconds * 1000;
    if (now < settled)
      return blocker(
        `admin state Down since ${new Date(lb.downAt).toISOString()}; connections have until ${new Date(settled).toISOString()} to finish`,
      );
  }
  return null;
}

export type LoadBalancerAction =
  | {
      kind: "takeDown";
      eventKey: string;
      eventId: string;
      memberKey: string;
      vm: VmIdentity;
      /** Another active event of the VM holds it Down already: its pools and previous states. */
      inherit: { pools: BackendMembership[]; downAt: number | null } | null;
    }
  | {
      kind: "restore";
      eventKey: string;
      eventId: string;
      memberKey: string;
      vm: VmIdentity;
      pools: BackendMembership[];
    };

const isActive = (e: EventRecord) => e.endedAt === null && e.leftAt === null;
const HOLDING: ReadonlySet<LoadBalancerStep["state"]> = new Set(["goingDown", "down"]);

/**
 * Another event that holds this VM Down (taking it Down, or Down) while still active; or, for
 * `orRestoring`, one putting its admin states back: a new take-down inherits the states recorded
 * before either event touched the VM, never the Down the other one set.
 */
function holderFor(state: ClusterState, except: string, mk: string, orRestoring = false) {
  for (const e of Object.values(state.events)) {
    if (e.key === except) continue;
    const lb = state.readiness[e.key]?.[mk]?.loadBalancer;
    if (!lb) continue;
    if (HOLDING.has(lb.state) && isActive(e)) return { event: e, step: lb };
    if (orRestoring && (lb.state === "restoring" || (HOLDING.has(lb.state) && !isActive(e))))
      return { event: e, step: lb };
  }
  return null;
}

/**
 * Pure changes that need no ARM call: a VM deleted with its event has nothing to restore; a VM
 * another active event still holds Down is handed over to it (that event restores it, to the
 * states recorded before either took it Down). Applied by the sweep's tick.
 */
export function settleLoadBalancerSteps(
  state: ClusterState,
  now: number,
): { state: ClusterState; transitions: Transition[] } {
  let readiness = state.readiness;
  const transitions: Transition[] = [];
  for (const e of Object.values(state.events)) {
    if (e.leftAt === null) continue;
    for (const [mk, row] of Object.entries(state.readiness[e.key] ?? {})) {
      const lb = row.loadBalancer;
      if (!lb || !(HOLDING.has(lb.state) || lb.state === "restoring")) continue;
      let next: LoadBalancerStep | null = null;
      let reason = "";
      if (DELETES_VMS.has(e.eventType)) {
        next = { ...lb, state: "gone", since: now };
        reason = `${row.vmName} was deleted by the ${e.eventType}: no admin state to restore`;
      } else {
        const holder = holderFor(state, e.key, mk);
        if (holder) {
          next = { ...lb, state: "handedOver", since: now, handedTo: holder.event.key };
          reason = `${row.vmName} stays out of its load balancer: event ${holder.event.eventId} still holds it and restores it`;
        }
      }
      if (!next) continue;
      const rows = readiness[e.key] ?? {};
      readiness = withEntry(readiness, e.key, withEntry(rows, mk, { ...row, loadBalancer: next }));
      transitions.push({
        eventKey: e.key,
        at: now,
        from: e.phase,
        to: e.phase,
        reason,
        vm: row.vmName,
      });
    }
  }
  return { state: readiness === state.readiness ? state : { ...state, readiness }, transitions };
}

/** The ARM writes due now (level-triggered: recomputed from storage every sweep). */
export function dueLoadBalancerActions(
  state: ClusterState,
  now: number,
  policy: Policy,
): LoadBalancerAction[] {
  const actions: LoadBalancerAction[] = [];
  for (const e of Object.values(state.events)) {
    for (const [mk, row] of Object.entries(state.readiness[e.key] ?? {})) {
      // A VM without a relay is drained by the coordinator too (agentless), by its ARM id.
      const vm =
        state.members[mk]?.vm ??
        (isAgentless(state, mk, policy) ? agentlessIdentity(e, row.vmName) : null);
      if (!vm) continue;
      const lb = row.loadBalancer;
      const base = { eventKey: e.key, eventId: e.eventId, memberKey: mk, vm };
      if (wantsTakeDown(e, row, lb, now, policy)) {
        const holder = holderFor(state, e.key, mk, true);
        actions.push({
          kind: "takeDown",
          ...base,
          inherit: holder ? { pools: holder.step.pools, downAt: holder.step.downAt } : null,
        });
      } else if (
        lb &&
        // goingDown too: a crash after the write but before its record may have left it Down.
        (HOLDING.has(lb.state) || lb.state === "restoring") &&
        e.leftAt !== null &&
        !DELETES_VMS.has(e.eventType) &&
        (row.drain === null || row.recover?.status === "succeeded") &&
        !holderFor(state, e.key, mk)
      ) {
        actions.push({ kind: "restore", ...base, pools: lb.pools });
      }
    }
  }
  return actions;
}

function wantsTakeDown(
  e: EventRecord,
  row: Readiness,
  lb: LoadBalancerStep | undefined,
  now: number,
  policy: Policy,
): boolean {
  if (!policy.loadBalancerDrain.enabled || !row.affected || !isActive(e)) return false;
  if (isAdvisoryEvent(e)) return false; // nothing approves it: its VMs keep serving
  if (e.status !== "Scheduled" || e.approvedAt !== null) return false;
  if (!lb || lb.state === "goingDown") return true;
  return lb.state === "failed" && now - lb.since >= RETRY_FAILED_MS;
}

/** Records a step of one VM's load-balancer drain (the shell, around its ARM writes). */
export function recordLoadBalancerStep(
  state: ClusterState,
  eventKey: string,
  mk: string,
  step: LoadBalancerStep,
  reason: string,
  now: number,
): { state: ClusterState; transitions: Transition[] } | null {
  const e = state.events[eventKey];
  const row = state.readiness[eventKey]?.[mk];
  if (!e || !row) return null;
  const rows = state.readiness[eventKey] ?? {};
  return {
    state: {
      ...state,
      readiness: withEntry(
        state.readiness,
        eventKey,
        withEntry(rows, mk, { ...row, loadBalancer: step }),
      ),
    },
    transitions: [{ eventKey, at: now, from: e.phase, to: e.phase, reason, vm: row.vmName }],
  };
}

/**
 * VMs of an event that left the document whose admin state is still to be put back (the event
 * stays Recovering for them, within the recover timeout): not for a VM whose recover hook failed,
 * which stays out of its load balancer for an operator to look at.
 */
export function restoresOwed(state: ClusterState, e: EventRecord): string[] {
  if (DELETES_VMS.has(e.eventType)) return [];
  return Object.values(state.readiness[e.key] ?? {})
    .filter(
      (r) =>
        r.loadBalancer &&
        ["goingDown", "down", "restoring"].includes(r.loadBalancer.state) &&
        r.recover?.status !== "failed",
    )
    .map((r) => r.vmName);
}
