import {
  type ClusterState,
  countsEveryMember,
  type EvaluationInputs,
  hasGates,
  isEnded,
} from "@quiesce/core";
import type { Logger } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import { StatusQueries } from "../store";
import { type AcknowledgeSummary, runDueAcknowledges } from "./acknowledge";
import { type HookCaller, startDueAgentlessHooks } from "./agentless";
import { runDueChangeRecords } from "./changeRecords";
import type { ControlPlaneDeps } from "./deps";
import { GateEvaluator, type PatchingVerdict } from "./gates";
import { type LoadBalancerSummary, runDueLoadBalancerSteps } from "./loadBalancer";
import type { ArmOutcome, ControlPlanePorts, HttpProbe, ScheduledEventsScan } from "./ports";
import type { RegionWatch } from "./regionWatch";

export type { HookCaller } from "./agentless";
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

  /** Hook runs and follow-ups in flight (not awaited by the round that started them). */
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: ControlPlaneDeps,
    private readonly ports: ControlPlanePorts | null,
    probe: HttpProbe,
    private readonly hooks: HookCaller = async () => ({
      result: "failed",
      detail: "no hook caller in this coordinator",
    }),
    patching?: PatchingVerdict,
  ) {
    this.gates = new GateEvaluator(probe, ports, () => deps.clock.now(), patching);
  }

  get enabled(): boolean {
    return this.ports !== null;
  }

  async runDue(state: ClusterState, policy: Policy): Promise<ControlPlaneSummary> {
    const none = { acknowledged: 0, failed: 0, takenDown: 0, restored: 0 };
    if (!this.ports) return none;
    // Change records first: the acknowledges and load-balancer writes below name them.
    if (this.deps.changeRecords)
      await runDueChangeRecords(this.deps, this.deps.changeRecords, state, policy);
    const acks = await runDueAcknowledges(this.deps, this.ports, state, policy);
    const lb = await runDueLoadBalancerSteps(this.deps, this.ports, state, policy);
    this.startAgentless(state, policy);
    return { ...acks, ...lb, failed: acks.failed + lb.failed };
  }

  /**
   * After some events' state moved outside the sweep (an Event Grid delivery, a hook's outcome):
   * the acknowledges and hook runs now due for them, at once rather than at the next sweep. Reads
   * those events' rows, not the whole cluster (each acknowledge and claim reads it afresh when it
   * is due). Load-balancer steps stay with the sweep, whose timer runs on one instance at a time
   * (loadBalancer.ts).
   */
  followUp(cluster: string, policy: Policy, eventKeys: readonly string[]): void {
    const ports = this.ports;
    if (!ports) return;
    this.track(
      (async () => {
        // Their rows alone, not the cluster's events partition (every event kept for retention).
        const { state } = await this.deps.store.loadEvents(cluster, eventKeys, [], {
          onlyTheseEvents: true,
        });
        const keys = new Set(eventKeys);
        await runDueAcknowledges(this.deps, ports, state, policy);
        this.startAgentless(state, policy, keys);
      })(),
      this.deps.log.child({ cluster, events: eventKeys }),
    );
  }

  /**
   * The safety gates' verdicts for an election decided on a load of part of the cluster (a
   * report's, an agentless outcome's). A live-relays gate counts every member, which such a load
   * does not hold: only then is the whole cluster read.
   */
  async gateInputs(state: ClusterState, policy: Policy): Promise<EvaluationInputs> {
    if (!hasGates(policy)) return {};
    const whole = countsEveryMember(policy)
      ? (await this.deps.store.loadCluster(state.cluster)).state
      : state;
    return { gates: await this.gates.evaluate(whole, policy) };
  }

  /**
   * The gates' verdicts for a round without a relay to elect (the sweep's tick, a published
   * delivery), on a read that holds what they count: asked only while an event of the cluster
   * may still need an approval.
   */
  async waitingGateInputs(state: ClusterState, policy: Policy): Promise<EvaluationInputs> {
    if (!hasGates(policy)) return {};
    const waiting = Object.values(state.events).some((e) => !isEnded(e) && e.approvedAt === null);
    return waiting ? { gates: await this.gates.evaluate(state, policy) } : {};
  }

  /** Resource Graph's scheduled events (the backstop); null without the control plane. */
  scheduledEvents(
    subscriptions: readonly string[],
  ): Promise<ArmOutcome<ScheduledEventsScan>> | null {
    return this.ports ? this.ports.scheduledEvents(subscriptions) : null;
  }

  /** Where Azure offers approval through ARM (regionWatch.ts); null without the control plane. */
  get regions(): RegionWatch | null {
    return this.deps.regions ?? null;
  }

  /** The region probe, when due (the sweep asks every round; regionWatch.ts decides). */
  probeRegions(): Promise<{ probed: number; places: number } | null> {
    const regions = this.deps.regions;
    if (!this.ports || !regions) return Promise.resolve(null);
    return regions.probeDue(() =>
      new StatusQueries(this.deps.store.tables, this.deps.store.memberRows).members(),
    );
  }

  /** Resolves once nothing started by this instance is still running (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** `only`: the events whose rows were read (a follow-up's); the sweep's load holds every one. */
  private startAgentless(state: ClusterState, policy: Policy, only?: ReadonlySet<string>): void {
    if (!this.ports) return;
    const runner = { call: this.hooks, gateInputs: () => this.gateInputs(state, policy) };
    const runs = startDueAgentlessHooks(this.deps, runner, state, policy, only, (c, key) =>
      this.followUp(c, policy, [key]),
    );
    for (const r of runs) this.track(r, this.deps.log.child({ cluster: state.cluster }));
  }

  /** `log`: bound to what the work is for; the app's, as the work outlives any invocation. */
  private track(p: Promise<unknown>, log: Logger): void {
    const tracked = p
      .catch((e: unknown) => log.error("control plane: agentless work failed", { error: e }))
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }
}
