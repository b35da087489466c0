import { withEntry } from "@quiesce/protocol";
import { eventKey } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { PublishedObservation } from "@quiesce/protocol/published";
import type { RelayReport } from "@quiesce/protocol/relay";
import {
  type ChangeRecordOutcome,
  claimChangeRecord,
  recordChangeRecord,
} from "../lifecycle/changeRecords";
import { needsClusterEvents } from "../lifecycle/clusterEvents";
import type { MemberAttestation } from "../model/attestationState";
import { type ClusterState, type LoadBalancerStep, memberKey } from "../model/state";
import type { Decision, OperatorAction, ReportDecision } from "../model/types";
import { type AcknowledgeOutcome, claimAcknowledge } from "../rules/controlPlane";
import { countsEveryMember, type EvaluationInputs } from "../rules/gates";
import {
  dueLoadBalancerActions,
  type LoadBalancerAction,
  recordLoadBalancerStep,
} from "../rules/loadBalancer";
import { applyAcknowledgeOutcome } from "./acknowledgeOutcome";
import { type AgentlessRun, claimAgentlessHook, recordAgentlessHook } from "./agentless";
import { applyOperatorAction } from "./operator";
import { applyPublishedBatch } from "./publishedBatch";
import { applyReport, type ReportInputs } from "./report";
import { tick } from "./tick";

/**
 * Every round the coordinator runs, as one input: what happened (a relay's report, events Azure
 * published, an operator's action, the sweep's tick) or what the coordinator itself did through
 * Azure Resource Manager or an agentless hook (a claim, then its outcome). The shell's one round
 * runner (functions/src/rounds/) loads what `readSet` says, decides with `decideRound`, commits
 * under ETags and derives the effects: the same for every kind.
 */
export type RoundInput =
  | { kind: "report"; report: RelayReport; inputs: ReportInputs }
  /**
   * A report refused under `attestation: require` (not from the VM's bound relay): it changes
   * nothing but what the member's row says of its attestation, so operators see it and the sweep
   * alerts on it; and only for a VM already registered (an unbound report creates no member).
   */
  | { kind: "refusedReport"; vm: string; attestation: MemberAttestation | undefined }
  | {
      kind: "published";
      observations: readonly PublishedObservation[];
      inputs: EvaluationInputs;
    }
  | { kind: "operator"; eventKey: string; action: OperatorAction }
  | { kind: "tick"; eventRetentionMs: number; inputs: EvaluationInputs }
  /** Claims the acknowledge of a control-plane lease: one instance's claim lands. */
  | { kind: "acknowledgeClaim"; eventKey: string; attempt: number }
  /** What Azure Resource Manager answered to a claimed acknowledge. */
  | { kind: "acknowledgeOutcome"; eventKey: string; attempt: number; outcome: AcknowledgeOutcome }
  /** Claims an agentless hook run (`claim` tells this instance's claim from another's). */
  | { kind: "hookClaim"; run: AgentlessRun; claim: string }
  /** What a claimed agentless hook run did. */
  | {
      kind: "hookOutcome";
      run: AgentlessRun;
      outcome: { result: "succeeded" | "failed"; detail: string; startedAt: number };
      inputs: EvaluationInputs;
    }
  /** Claims a call of an event's change record (lifecycle/changeRecords.ts): one instance's lands. */
  | { kind: "changeRecordClaim"; eventKey: string; step: "open" | "close"; attempt: number }
  /** What Azure Change Safety answered to a claimed change record call. */
  | {
      kind: "changeRecordOutcome";
      eventKey: string;
      step: "open" | "close";
      attempt: number;
      outcome: ChangeRecordOutcome;
    }
  /**
   * A step of a VM's load-balancer drain. `ifStillDue`: record it only while the action is still
   * due (a success); a failure is recorded whatever came meanwhile.
   */
  | {
      kind: "loadBalancerStep";
      action: LoadBalancerAction;
      step: Omit<LoadBalancerStep, "since">;
      reason: string;
      ifStillDue: boolean;
    };

export type RoundKind = RoundInput["kind"];

/**
 * What a round must read. `cluster`: every member and every event not ended (plus `alsoEvents`).
 * `events`: only these events' rows and these VMs' members (a delivery's own events: at 10,000
 * VMs the cluster is every member row). `report`: the reporter's member row, then what the core's
 * `reportScope` says the report concerns. `member`: one VM's member row. A read of some events cannot decide an election (which
 * counts the cluster's events in flight): `decideRound` asks for them (`readClusterEvents`).
 */
export type ReadSet =
  | { kind: "cluster"; alsoEvents: string[] }
  | { kind: "events"; events: string[]; vms: string[] }
  | { kind: "report"; report: RelayReport }
  | { kind: "member"; vm: string };

/** What a round read: the state, and whether it holds every event of the cluster. */
export interface RoundView {
  state: ClusterState;
  clusterEvents: boolean;
}

export type RoundResult =
  | { kind: "decided"; decision: Decision | ReportDecision; changed?: boolean[] }
  /** The decision may elect an approver: read the cluster's events, then decide again. */
  | { kind: "readClusterEvents" };

/** Which rows a round must read (the policy says whether a gate counts every member). */
export function readSet(input: RoundInput, policy: Policy): ReadSet {
  switch (input.kind) {
    case "report":
      return { kind: "report", report: input.report };
    case "refusedReport":
      return { kind: "member", vm: input.vm };
    case "published": {
      const events = [...new Set(input.observations.map((o) => eventKey(o.event.EventId)))];
      // A live-relays gate counts every member: then the whole cluster, as the sweep reads it.
      return countsEveryMember(policy)
        ? { kind: "cluster", alsoEvents: events }
        : { kind: "events", events, vms: input.observations.flatMap((o) => o.event.Resources) };
    }
    case "operator":
      return { kind: "cluster", alsoEvents: [input.eventKey] };
    default:
      return { kind: "cluster", alsoEvents: [] };
  }
}

const unchanged = (state: ClusterState): Decision => ({ state, transitions: [], forget: [] });
const asDecision = (c: Pick<Decision, "state" | "transitions"> | null, state: ClusterState) =>
  c ? { state: c.state, transitions: c.transitions, forget: [] } : unchanged(state);

/**
 * The core's decision of one round, on what was read. A decision on some events only that may
 * elect is not made: the runner reads the cluster's events and asks again, so no election is ever
 * decided on a partial count of the events in flight.
 */
export function decideRound(
  view: RoundView,
  input: RoundInput,
  now: number,
  policy: Policy,
): RoundResult {
  const { state } = view;
  const result = decide(state, input, now, policy);
  if (!view.clusterEvents && needsClusterEvents(state, result.decision.state))
    return { kind: "readClusterEvents" };
  return { kind: "decided", ...result };
}

function decide(
  state: ClusterState,
  input: RoundInput,
  now: number,
  policy: Policy,
): { decision: Decision | ReportDecision; changed?: boolean[] } {
  switch (input.kind) {
    case "report":
      return { decision: applyReport(state, input.report, now, policy, input.inputs) };
    case "refusedReport":
      return { decision: keepAttestation(state, input.vm, input.attestation) };
    case "published":
      return applyPublishedBatch(state, input.observations, now, policy, input.inputs);
    case "operator":
      return {
        decision: applyOperatorAction(state, input.eventKey, input.action, now, policy),
      };
    case "tick":
      return {
        decision: tick(state, now, policy, {
          eventRetentionMs: input.eventRetentionMs,
          inputs: input.inputs,
        }),
      };
    case "acknowledgeClaim":
      return {
        decision: asDecision(claimAcknowledge(state, input.eventKey, input.attempt, now), state),
      };
    case "acknowledgeOutcome":
      return {
        decision: asDecision(
          applyAcknowledgeOutcome(state, input.eventKey, input.attempt, input.outcome, now, policy),
          state,
        ),
      };
    case "hookClaim":
      return {
        decision: asDecision(claimAgentlessHook(state, input.run, now, policy, input.claim), state),
      };
    case "hookOutcome":
      return {
        decision: asDecision(
          recordAgentlessHook(state, input.run, input.outcome, now, policy, input.inputs),
          state,
        ),
      };
    case "changeRecordClaim":
      return {
        decision: asDecision(
          claimChangeRecord(state, input.eventKey, input.step, input.attempt, now),
          state,
        ),
      };
    case "changeRecordOutcome":
      return {
        decision: asDecision(
          recordChangeRecord(state, input.eventKey, input.step, input.attempt, input.outcome, now),
          state,
        ),
      };
    case "loadBalancerStep": {
      const a = input.action;
      const due =
        !input.ifStillDue ||
        dueLoadBalancerActions(state, now, policy).some(
          (d) => d.kind === a.kind && d.eventKey === a.eventKey && d.memberKey === a.memberKey,
        );
      const step = due
        ? recordLoadBalancerStep(
            state,
            a.eventKey,
            a.memberKey,
            { ...input.step, since: now },
            input.reason,
            now,
          )
        : null;
      return { decision: asDecision(step, state) };
    }
  }
}

function keepAttestation(
  state: ClusterState,
  vm: string,
  attestation: MemberAttestation | undefined,
): Decision {
  const mk = memberKey(vm);
  const member = state.members[mk];
  if (!member || !attestation || attestation === member.attestation) return unchanged(state);
  return {
    state: { ...state, members: withEntry(state.members, mk, { ...member, attestation }) },
    transitions: [],
    forget: [],
  };
}

/** Whether a decision changes anything the store would write. */
export const writesAnything = (before: ClusterState, d: Decision): boolean =>
  d.state !== before || d.transitions.length > 0 || d.forget.length > 0;
