import {
  type ClusterState,
  type Decision,
  memberKey,
  type ReportDecision,
  type RoundInput,
  storedHooks,
} from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import type { AnswerAttestation, RelayReport } from "@quiesce/protocol/relay";
import { loadReport } from "../rounds/read";
import { runRound } from "../rounds/runner";
import type { OpCounts } from "../store";
import type { AttestationStep, Attested } from "./attest";
import type { PipelineDeps } from "./deps";

/**
 * One report, one round (rounds/runner.ts): read its scope → decide → read the cluster's events
 * and decide again when it may elect → commit under ETags, from a fresh read when another
 * instance wrote first → effects. What is the report's own: its attestation (decided on its
 * member row before the core decides), the answer, and which stored hooks it may forget.
 */

export interface ReportOutcome {
  decision: ReportDecision;
  /** The hook runs storage held before this report, settled: the relay may forget them. */
  hooksStored: string[];
  /** What the report cost in table operations, all attempts together. */
  ops: OpCounts;
  /** The answer's attestation field (absent when attestation is off). */
  attestation?: AnswerAttestation;
  /** Under `attestation: require`, a report not from the VM's bound relay: not applied. */
  refusal?: { status: 403 | 503; message: string };
}

export async function processReport(
  deps: PipelineDeps,
  report: RelayReport,
  policy: Policy,
  attestation?: AttestationStep,
): Promise<ReportOutcome> {
  const reporter = memberKey(report.vm.name);
  // Attestation is decided on the reporter's member row, as each attempt reads it (the same row
  // object is not decided twice: a proof's verification may call out to Azure).
  let attested: Attested | undefined;
  let attestedFor: unknown;
  const attest = async (state: ClusterState, now: number) => {
    const member = state.members[reporter];
    if (!attestation || (attested && attestedFor === member)) return attested;
    attestedFor = member;
    attested = await attestation.decide(member, now);
    return attested;
  };
  let attempts = 0;
  const own = await loadReport(deps.store, report, { cached: true }).catch((e: unknown) => {
    deps.telemetry.report(report.cluster, "unavailable", 1);
    throw e;
  });
  const first = await attest(own.state, deps.clock.now());
  const refused = first !== undefined && !first.decision.accept;
  const input: RoundInput = refused
    ? { kind: "refusedReport", vm: report.vm.name, attestation: first.decision.attestation }
    : { kind: "report", report, inputs: {} };
  const outcome = await runRound(deps, report.cluster, input, {
    policy,
    reporter,
    cached: true,
    loaded: own,
    onAttempt: () => attempts++,
    // The gates are asked only when the round may elect (it read the cluster's events then).
    evaluationInputs: async (state, clusterEvents) => {
      const a = refused ? undefined : await attest(state, deps.clock.now());
      return {
        ...(a ? { attestation: a.decision.attestation } : {}),
        ...(clusterEvents ? await deps.controlPlane.gateInputs(state, policy) : {}),
      };
    },
  }).catch((e: unknown) => {
    // Store failures (lost races, an unreachable store) are answered by the handler.
    deps.telemetry.report(report.cluster, "unavailable", Math.max(1, attempts));
    throw e;
  });
  const decision = outcome.decision as ReportDecision | Decision;
  const answer =
    attestation && attested ? await attestation.answer(attested, outcome.now) : undefined;
  const refusal = attested?.decision.refusal;
  if (refused && refusal) {
    deps.telemetry.report(report.cluster, "rejected", attempts);
    return {
      decision: refusedDecision(decision),
      hooksStored: [],
      ops: outcome.ops,
      ...(answer ? { attestation: answer } : {}),
      refusal: { status: refusal.status, message: refusal.message },
    };
  }
  const settleMs = deps.options.storageSettleMs;
  return {
    decision: decision as ReportDecision,
    // From what storage held before this report: an answer alone proves no durability.
    hooksStored: storedHooks(outcome.before, report, reporter, outcome.now, settleMs),
    ops: outcome.ops,
    ...(answer ? { attestation: answer } : {}),
  };
}

/** A refused report's answer carries nothing for the relay to act on. */
const refusedDecision = (d: Decision): ReportDecision => ({
  ...d,
  reply: { directives: [], applied: false, nextReportInSeconds: 0 },
});

export { loadReport };
