import {
  type BackendMembership,
  type ClusterState,
  dueLoadBalancerActions,
  type LoadBalancerAction,
  type LoadBalancerStep,
} from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import { runRound } from "../rounds/runner";
import type { ControlPlaneDeps } from "./deps";
import { type ArmProblem, type ControlPlanePorts, describeProblem } from "./ports";

export interface LoadBalancerSummary {
  takenDown: number;
  restored: number;
  failed: number;
}

/**
 * Runs the load-balancer steps due in this cluster (core/src/rules/loadBalancer.ts), one VM at a
 * time. Each ARM write is preceded by a record of what it is about to do (goingDown with the
 * previous admin states, restoring) and followed by a record of its result, both committed:
 * whatever instance runs the next sweep after a crash finishes the step from storage, with the
 * previous states read before the first write. Run by the sweep only: the timer runs on one
 * instance at a time, so two steps for one VM never race.
 */
export async function runDueLoadBalancerSteps(
  deps: ControlPlaneDeps,
  ports: ControlPlanePorts,
  state: ClusterState,
  policy: Policy,
): Promise<LoadBalancerSummary> {
  const summary = { takenDown: 0, restored: 0, failed: 0 };
  for (const action of dueLoadBalancerActions(state, deps.clock.now(), policy)) {
    const ok =
      action.kind === "takeDown"
        ? await takeDown(deps, ports, state, policy, action)
        : await restore(deps, ports, state, policy, action);
    if (ok === null) continue;
    if (!ok) summary.failed++;
    else if (action.kind === "takeDown") summary.takenDown++;
    else summary.restored++;
  }
  return summary;
}

type Step = Omit<LoadBalancerStep, "since">;

/**
 * Records a step in its own round. `ifStillDue`: only if the same action is still due for the
 * VM (else another run took it); a failure is recorded whatever came meanwhile.
 * Resolves to the state after it, or null when nothing was recorded.
 */
async function record(
  deps: ControlPlaneDeps,
  cluster: string,
  action: LoadBalancerAction,
  policy: Policy,
  ifStillDue: boolean,
  step: Step,
  reason: string,
): Promise<ClusterState | null> {
  const r = await runRound(
    deps,
    cluster,
    { kind: "loadBalancerStep", action, step, reason, ifStillDue },
    { policy },
  );
  return r.committed ? r.decision.state : null;
}

/** The event's open change record (Change Safety): the policy token of each write names it. */
const changeReference = (s: ClusterState, a: LoadBalancerAction) =>
  s.events[a.eventKey]?.changeRecord?.id ?? undefined;

const currentStep = (s: ClusterState, a: LoadBalancerAction) =>
  s.readiness[a.eventKey]?.[a.memberKey]?.loadBalancer;

async function takeDown(
  deps: ControlPlaneDeps,
  ports: ControlPlanePorts,
  state: ClusterState,
  policy: Policy,
  action: Extract<LoadBalancerAction, { kind: "takeDown" }>,
): Promise<boolean | null> {
  const cluster = state.cluster;
  const vm = action.vm.name;
  const fail = async (p: ArmProblem, pools: BackendMembership[]) => {
    deps.telemetry.controlPlane(cluster, "loadBalancerDown", p.code, 0);
    await record(
      deps,
      cluster,
      action,
      policy,
      false,
      { state: "failed", pools, downAt: null, error: describeProblem(p) },
      `could not take ${vm} out of its load balancer: ${describeProblem(p)}`,
    );
    return false;
  };
  // Previous states already recorded (a step cut short, or another event holding the VM) are
  // kept: what the pools show now may be our own Down.
  const known = action.inherit?.pools ?? currentStep(state, action)?.pools ?? [];
  const addresses = await ports.backendAddresses(action.vm);
  if (!addresses.ok) return fail(addresses.error, known);
  if (addresses.value.length === 0) {
    const r = await record(
      deps,
      cluster,
      action,
      policy,
      true,
      { state: "notInLoadBalancer", pools: [], downAt: null, error: null },
      `${vm} is in no load balancer pool: nothing to take out`,
    );
    return r ? true : null;
  }
  const pools: BackendMembership[] = [];
  for (const a of addresses.value) {
    const same = known.find(
      (k) =>
        k.ipConfigurationId.toLowerCase() === a.ipConfigurationId.toLowerCase() &&
        k.poolId.toLowerCase() === a.poolId.toLowerCase(),
    );
    if (same) {
      pools.push(same);
      continue;
    }
    const now = await ports.adminState(a);
    if (!now.ok) return fail(now.error, pools);
    pools.push({ ...a, previous: now.value });
  }
  const claimed = await record(
    deps,
    cluster,
    action,
    policy,
    true,
    { state: "goingDown", pools, downAt: null, error: null },
    `taking ${vm} out of its load balancer: admin state Down on ${pools.length} backend address(es), previously ${pools.map((p) => p.previous).join(", ")}`,
  );
  if (!claimed) return null;
  const started = deps.clock.now();
  for (const p of pools) {
    // An address already Down before us is left exactly as it was, now and on restore.
    if (p.previous === "Down") continue;
    const set = await ports.setAdminState(p, "Down", undefined, changeReference(claimed, action));
    if (!set.ok) return fail(set.error, pools);
  }
  deps.telemetry.controlPlane(cluster, "loadBalancerDown", "ok", deps.clock.now() - started);
  const downAt = action.inherit?.downAt ?? deps.clock.now();
  await record(
    deps,
    cluster,
    action,
    policy,
    false,
    { state: "down", pools, downAt, error: null },
    `${vm} is out of its load balancer (admin state Down); connections get ${policy.loadBalancerDrain.settleSeconds} s to finish`,
  );
  return true;
}

async function restore(
  deps: ControlPlaneDeps,
  ports: ControlPlanePorts,
  state: ClusterState,
  policy: Policy,
  action: Extract<LoadBalancerAction, { kind: "restore" }>,
): Promise<boolean | null> {
  const cluster = state.cluster;
  const vm = action.vm.name;
  const prior = currentStep(state, action);
  const downAt = prior?.downAt ?? null;
  const claimed = await record(
    deps,
    cluster,
    action,
    policy,
    true,
    { state: "restoring", pools: action.pools, downAt, error: null },
    `putting ${vm} back in its load balancer`,
  );
  if (!claimed) return null;
  const started = deps.clock.now();
  for (const p of action.pools) {
    if (p.previous === "Down") continue; // never Quiesce's to undo
    // Only if still Down: an operator who changed it meanwhile has the last word.
    const set = await ports.setAdminState(p, p.previous, "Down", changeReference(claimed, action));
    if (!set.ok) {
      deps.telemetry.controlPlane(cluster, "loadBalancerRestore", set.error.code, 0);
      await record(
        deps,
        cluster,
        action,
        policy,
        false,
        { state: "restoring", pools: action.pools, downAt, error: describeProblem(set.error) },
        `could not put ${vm} back in its load balancer (retried every sweep): ${describeProblem(set.error)}`,
      );
      return false;
    }
  }
  deps.telemetry.controlPlane(cluster, "loadBalancerRestore", "ok", deps.clock.now() - started);
  await record(
    deps,
    cluster,
    action,
    policy,
    false,
    { state: "restored", pools: action.pools, downAt, error: null },
    `${vm} is back in its load balancer (admin state ${action.pools.map((p) => p.previous).join(", ")})`,
  );
  return true;
}
