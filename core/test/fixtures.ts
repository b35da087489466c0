import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import { T0 } from "@quiesce/testkit/documents";
import {
  applyReport,
  type ClusterState,
  type Decision,
  type EvaluationInputs,
  emptyClusterState,
  explain,
  memberKey,
  type ReportDecision,
  tick,
} from "../src";

/**
 * The built-in policy with relays as the only approvers (the control plane's fallback is on by
 * default, but inert in a coordinator without QUIESCE_CONTROL_PLANE); tests of the control plane
 * turn it on themselves.
 */
export const policy = (p: Partial<Policy> = {}): Policy => ({
  ...DEFAULT_POLICY,
  controlPlaneApproval: { ...DEFAULT_POLICY.controlPlaneApproval, mode: "off" },
  ...p,
});

export const approveIds = (d: ReportDecision): string[] =>
  d.reply.directives.flatMap((x) => (x.kind === "approve" ? x.eventIds : []));

/** Applies reports (and ticks) in order on one cluster's state, advancing a clock. */
export class Sim {
  state: ClusterState = emptyClusterState("web");
  now = T0;
  constructor(readonly p: Policy = policy()) {}
  send(r: RelayReport, advanceMs = 1000): ReportDecision {
    this.now += advanceMs;
    const d = applyReport(this.state, r, this.now, this.p);
    this.state = d.state;
    return d;
  }
  /** A report decided with the gate verdicts the shell evaluated for it. */
  sendWith(r: RelayReport, inputs: EvaluationInputs | undefined, advanceMs = 1000): ReportDecision {
    this.now += advanceMs;
    const d = applyReport(this.state, r, this.now, this.p, inputs);
    this.state = d.state;
    return d;
  }
  tick(advanceMs: number, inputs?: EvaluationInputs): Decision {
    this.now += advanceMs;
    const d = tick(this.state, this.now, this.p, inputs ? { inputs } : {});
    this.state = d.state;
    return d;
  }
  phase(id: string) {
    return this.state.events[id.toLowerCase()]?.phase;
  }
  event(id: string) {
    const e = this.state.events[id.toLowerCase()];
    if (!e) throw new Error(`no event ${id}`);
    return e;
  }
  member(vm: string) {
    return this.state.members[memberKey(vm)];
  }
  /** What the event waits for, on which VMs (the status API's explanation). */
  blockers(id: string) {
    return explain(this.state, id.toLowerCase(), this.now, this.p)?.blockers ?? [];
  }
}
