import type { Directive } from "@quiesce/protocol/relay";
import type { BlockerReason, Phase } from "@quiesce/protocol/status";
import type { ClusterState, FailingGate, Transition } from "./state";

/** What the core returns for a report, a tick or an operator action. */
/**
 * What a round decided: the cluster's new state, the transitions that got it there (its history)
 * and the events to forget. Only a report is answered (ReportDecision); every other round's
 * decision is the state alone.
 */
export interface Decision {
  state: ClusterState;
  transitions: Transition[];
  /** Events whose retention ran out: the store deletes them with their readiness rows. */
  forget: string[];
}

/** The answer to the reporting relay. */
export interface Reply {
  directives: Directive[];
  /** False when the report was older than one already applied and changed nothing. */
  applied: boolean;
  /** When the reporting relay should report again. */
  nextReportInSeconds: number;
}

export interface ReportDecision extends Decision {
  reply: Reply;
}

export interface Blocker {
  vm: string;
  reason: BlockerReason;
  detail: string;
}

export interface Explanation {
  eventKey: string;
  eventId: string;
  phase: Phase;
  /** One sentence: what the event waits for now. */
  waitingFor: string;
  blockers: Blocker[];
  /** The rule that allowed (or would allow) approval, if any. */
  approvalRule: string | null;
  /** Affected VMs that are confirmed drained. */
  drained: string[];
  /** Gates failing at their last evaluation (policy gates), while the event is Ready. */
  gates: FailingGate[];
  /** Which maintenance-window rule applied (rules/maintenanceWindow.ts), also once it passed; null: no windows. */
  maintenanceWindow: string | null;
}

/**
 * `replace`: a hold may take the place of another operator's force-approve, and a force-approve
 * of a hold, only when it says so (rounds/operator.ts refuses it otherwise).
 */
export type OperatorAction =
  | { kind: "hold"; by: string; reason: string; ttlSeconds: number; replace?: boolean }
  | { kind: "release"; by: string; reason: string }
  | { kind: "forceApprove"; by: string; reason: string; ttlSeconds: number; replace?: boolean }
  /** Approve past one safety gate (policy gates) of this event; drains and the others still hold. */
  | { kind: "forceGate"; gate: string; by: string; reason: string; ttlSeconds: number };
