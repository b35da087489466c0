import {
  applyReport,
  type ClusterState,
  changesNothing,
  type Decision,
  memberKey,
  needsClusterEvents,
  type ReportInputs,
  reportScope,
  storedHooks,
} from "@quiesce/core";
import { withEntry } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { AnswerAttestation, RelayReport } from "@quiesce/protocol/relay";
import { decisionEffects } from "../effects/derive";
import { runEffects } from "../effects/run";
import {
  type ClusterStore,
  commitDecision,
  counted,
  type Loaded,
  type OpCounts,
  withConflictRetry,
} from "../store";
import type { AttestationStep, Attested } from "./attest";
import type { PipelineDeps } from "./deps";

/**
 * One report, one decision. Each attempt runs
 *   load → decide → electApprover (only when the decision may elect one) → commit
 * under ETags, and starts over from a fresh read when another instance wrote first; once an
 * attempt has landed, its effects (metrics, notifications) are derived from what it changed
 * (effects/derive.ts) and run, so nothing after the commit can hold up or undo the decision.
 */

export interface ReportOutcome {
  decision: Decision;
  /** The hook runs storage held before this report, settled: the relay may forget them. */
  hooksStored: string[];
  /** What the report cost in table operations, all attempts together. */
  ops: OpCounts;
  /** The answer's attestation field (absent when attestation is off). */
  attestation?: AnswerAttestation;
  /** Under `attestation: require`, a report not from the VM's bound relay: not applied. */
  refusal?: { status: 403 | 503; message: string };
}

/** What an attempt that landed decided, and from what. */
interface Attempt {
  before: ClusterState;
  decision: Decision;
  hooksStored: string[];
  attested: Attested | undefined;
  now: number;
}

interface Decided {
  loaded: Loaded;
  decision: Decision;
}

export async function processReport(
  deps: PipelineDeps,
  report: RelayReport,
  policy: Policy,
  attestation?: AttestationStep,
): Promise<ReportOutcome> {
  const reporter = memberKey(report.vm.name);
  const settleMs = deps.settings.QUIESCE_STORAGE_SETTLE_SECONDS * 1000;
  let attempts = 0;
  // What the first attempt decided from. An attempt that lost a race after some of its writes
  // landed (the new event's row, say) leaves them for the next attempt to read back as if they
  // had always been there: notifications are derived from this first read, so what that attempt
  // made due is not lost with it (the outbox sends each key once, whoever queues it).
  let firstBefore: ClusterState | undefined;
  const attempt = async (): Promise<Attempt> => {
    const own = await loadReport(deps.store, report, { cached: true });
    const now = deps.clock.now();
    const attested = await attestation?.decide(own.state.members[reporter], now);
    if (attested && !attested.decision.accept) {
      const decision = await keepAttestationOnly(deps, own, reporter, attested);
      return { before: own.state, decision, hooksStored: [], attested, now };
    }
    const inputs = attested ? { attestation: attested.decision.attestation } : {};
    const decideOn = (l: Loaded) =>
      electApprover(deps, decide(l, report, now, policy, inputs), report, now, policy, inputs);
    let { loaded, decision } = await decideOn(own);
    // Other VMs' rows may be this instance's copies (store/reportReadCache.ts): a decision on
    // them that would change anything is made again once they are read afresh, so every write
    // is decided on rows read for it, as without the copies.
    if (loaded.copies && !changesNothing(loaded.state, decision)) {
      await deps.store.refreshCopies(loaded);
      ({ loaded, decision } = await decideOn(loaded));
    }
    firstBefore ??= loaded.state;
    await commitDecision(deps.store, loaded, decision, { reporter });
    // From what storage held before this report: an answer alone proves no durability.
    const hooksStored = storedHooks(loaded.state, report, reporter, now, settleMs);
    return { before: loaded.state, decision, hooksStored, attested, now };
  };
  const { value, ops } = await counted(() =>
    withConflictRetry(async () => {
      attempts++;
      return attempt();
    }, deps.retry),
  ).catch((e: unknown) => {
    // Store failures (lost races, an unreachable store) are answered by the handler.
    deps.telemetry.report(report.cluster, "unavailable", attempts);
    throw e;
  });
  const answer =
    attestation && value.attested ? await attestation.answer(value.attested, value.now) : undefined;
  const refusal = value.attested?.decision.refusal;
  if (refusal) {
    deps.telemetry.report(report.cluster, "rejected", attempts);
    return {
      decision: value.decision,
      hooksStored: [],
      ops,
      ...(answer ? { attestation: answer } : {}),
      refusal: { status: refusal.status, message: refusal.message },
    };
  }
  const round = {
    kind: "report",
    report,
    attempts,
    conflicts: ops.conflicts,
    ...(attempts > 1 && firstBefore ? { firstBefore } : {}),
  } as const;
  runEffects(
    { telemetry: deps.telemetry, notify: (ns, p) => deps.notifier.afterCommit(ns, p) },
    decisionEffects(value.before, value.decision, round, deps.clock.now(), policy),
  );
  return {
    decision: value.decision,
    hooksStored: value.hooksStored,
    ops,
    ...(answer ? { attestation: answer } : {}),
  };
}

/**
 * A refused report (attestation: require) changes nothing but what the member's row says of its
 * attestation (a refused proof, unbound reports), so operators see it and the sweep alerts on it;
 * and only for a VM already registered: an unbound report creates no member.
 */
async function keepAttestationOnly(
  deps: PipelineDeps,
  loaded: Loaded,
  reporter: string,
  attested: Attested,
): Promise<Decision> {
  const member = loaded.state.members[reporter];
  const attestation = attested.decision.attestation;
  const state =
    member && attestation && attestation !== member.attestation
      ? {
          ...loaded.state,
          members: withEntry(loaded.state.members, reporter, { ...member, attestation }),
        }
      : loaded.state;
  const decision: Decision = {
    state,
    directives: [],
    transitions: [],
    applied: false,
    nextReportInSeconds: 0,
    forget: [],
  };
  if (state !== loaded.state) await commitDecision(deps.store, loaded, decision, { reporter });
  return decision;
}

/**
 * Load: the reporter's member row, then what the core's `reportScope` says the report concerns
 * (the events in its document, hooks and approvals, and those its member row listed), with the
 * readiness rows and members their decision reads. By default only those events, point-read: the
 * events partition is the cluster's hottest, and the others matter only to an election.
 */
export async function loadReport(
  store: ClusterStore,
  report: RelayReport,
  opts: { onlyItsEvents?: boolean; cached?: boolean } = {},
): Promise<Loaded> {
  const reporter = memberKey(report.vm.name);
  const loaded = await store.loadReporter(report.cluster, reporter, {
    idleHeartbeat: isIdleHeartbeat(report),
  });
  const events = reportScope(report, loaded.state.members[reporter]);
  if (events.size === 0) return loaded;
  const members = new Set<string>([reporter]);
  for (const ev of report.document?.Events ?? [])
    for (const vm of ev.Resources) members.add(memberKey(vm));
  return store.loadScope(loaded, {
    events,
    members,
    reporter,
    onlyTheseEvents: opts.onlyItsEvents ?? true,
    cached: opts.cached ?? false,
  });
}

/** Decide: the core's answer to the report, on what was loaded. */
function decide(
  loaded: Loaded,
  report: RelayReport,
  now: number,
  policy: Policy,
  inputs?: ReportInputs,
): Decided {
  return { loaded, decision: applyReport(loaded.state, report, now, policy, inputs) };
}

/**
 * Elect an approver: electing counts the cluster's events in flight (maxEventsInFlight), which a
 * load of the report's own events does not hold. So when the first decision may elect
 * (`needsClusterEvents`: an event Ready, or a lease given), the cluster's other events are read
 * into the same load and the report is decided again on them; otherwise the first decision stands.
 */
async function electApprover(
  deps: PipelineDeps,
  decided: Decided,
  report: RelayReport,
  now: number,
  policy: Policy,
  inputs: ReportInputs,
): Promise<Decided> {
  if (!needsClusterEvents(decided.loaded.state, decided.decision.state)) return decided;
  const loaded = await deps.store.addClusterEvents(decided.loaded);
  return decide(loaded, report, now, policy, {
    ...inputs,
    ...(await deps.controlPlane.gateInputs(loaded.state, policy)),
  });
}

/** Nothing in its document, no hooks, no approvals: its member may come from the idle cache. */
const isIdleHeartbeat = (report: RelayReport): boolean =>
  (report.document?.Events.length ?? 0) === 0 &&
  report.hooks.length === 0 &&
  report.approvals.length === 0;
