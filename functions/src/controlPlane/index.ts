import type { ClusterState } from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import { type AcknowledgeSummary, runDueAcknowledges } from "./acknowledge";
import type { ControlPlaneDeps } from "./deps";
import { GateEvaluator } from "./gates";
import { type LoadBalancerSummary, runDueLoadBalancerSteps } from "./loadBalancer";
import type { ControlPlanePorts, HttpProbe } from "./ports";

export type { ControlPlaneDeps } from "./deps";
export { GateEvaluator } from "./gates";
export * from "./ports";

export type ControlPlaneSummary = AcknowledgeSummary & LoadBalancerSummary;

/**
 * The coordinator's actions through Azure (docs/control-plane.md): safety gates for every round
 * that may elect an approver, and, after the sweep's tick of a cluster, the ARM calls the core
 * made due (acknowledges, load-balancer steps). Without ports (QUIESCE_CONTROL_PLANE off) only
 * HTTP and live-relay gates are evaluated; nothing else is due then (config.ts sees to it).
 */
export class ControlPlane {
  readonly gates: GateEvaluator;

  constructor(
    private readonly deps: ControlPlaneDeps,
    private readonly ports: ControlPlanePorts | null,
    probe: HttpProbe,
  ) {
    this.gates = new GateEvaluator(probe, ports, () => deps.clock.now());
  }

  get enabled(): boolean {
    return this.ports !== null;
  }

  async runDue(state: ClusterState, policy: Policy): Promise<ControlPlaneSummary> {
    const none = { acknowledged: 0, failed: 0, takenDown: 0, restored: 0 };
    if (!this.ports) return none;
    const acks = await runDueAcknowledges(this.deps, this.ports, state, policy);
    const lb = await runDueLoadBalancerSteps(this.deps, this.ports, state, policy);
    return { ...acks, ...lb, failed: acks.failed + lb.failed };
  }
}
