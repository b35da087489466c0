import {
  type ClusterState,
  changesNothing,
  type Decision,
  decideRound,
  type EvaluationInputs,
  type RoundInput,
  readSet,
  writesAnything,
} from "@quiesce/core";
import type { Clock } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import { decisionEffects, type Effects, type Round } from "../effects/derive";
import { runEffects } from "../effects/run";
import type { Notifier } from "../notify/notifier";
import {
  type AuditEntry,
  type ClusterStore,
  commitDecision,
  counted,
  type Loaded,
  type OpCounts,
  type RetryOptions,
  withConflictRetry,
} from "../store";
import type { Telemetry } from "../telemetry/metrics";
import { read } from "./read";

/** What the round runner runs with (coordinator.ts builds it once). */
export interface RoundDeps {
  store: ClusterStore;
  clock: Clock;
  retry?: RetryOptions;
  telemetry: Telemetry;
  notifier: Pick<Notifier, "afterCommit">;
}

export interface RoundOptions {
  policy: Policy;
  /**
   * Verdicts the core decides with (the safety gates), asked on every read the round decides on;
   * `clusterEvents`: the read holds every event (an election may be decided on it).
   */
  evaluationInputs?: (state: ClusterState, clusterEvents: boolean) => Promise<EvaluationInputs>;
  /** The reporter (its member row is written with the report's ETag rules). */
  reporter?: string;
  /** An operator's action: the audit row naming who and why. */
  audit?: AuditEntry;
  /** A report may decide on this instance's copies of other VMs' rows (reportReadCache.ts). */
  cached?: boolean;
  /** A load made before the round (a report's attestation is decided on its member row). */
  loaded?: Loaded;
  /** Hears each attempt (a report counts them in its metrics, failed ones included). */
  onAttempt?: () => void;
  /** The sweep leaves a cluster another instance is writing for its next round: no retry. */
  retryConflicts?: boolean;
  /**
   * Where the effects go: run at once (default), or handed back (the sweep holds a round's
   * notifications until every cluster was ticked).
   */
  effects?: "run" | "return";
}

export interface RoundOutcome {
  /** What the round read, in the attempt that landed. */
  before: ClusterState;
  decision: Decision;
  /** Published observations: which of them changed anything. */
  changed?: boolean[];
  /** Whether anything was written. */
  committed: boolean;
  /** The clock when the landing attempt decided. */
  now: number;
  attempts: number;
  ops: OpCounts;
  /** The round's effects, when `effects: "return"`. */
  effects?: Effects;
}

/**
 * The one round runner: read what the input's read set names → decide (the core) → read the
 * cluster's events and decide again when the decision may elect → commit under the ETags read,
 * from a fresh read on a conflict → derive the effects (metrics, notifications) of every round
 * from what it changed. Nothing else commits a decision.
 */
export async function runRound(
  deps: RoundDeps,
  cluster: string,
  input: RoundInput,
  opts: RoundOptions,
): Promise<RoundOutcome> {
  const { policy } = opts;
  let attempts = 0;
  // What the first attempt read: an attempt that lost a race after some of its writes landed
  // leaves them for the next to read back as if always there; notifications are due from here
  // (the outbox sends each key once, whoever queues it).
  let firstBefore: ClusterState | undefined;
  const attempt = async () => {
    attempts++;
    opts.onAttempt?.();
    const set = readSet(input, policy);
    let loaded =
      attempts === 1 && opts.loaded
        ? opts.loaded
        : await read(deps.store, cluster, set, { cached: opts.cached ?? false });
    const now = deps.clock.now();
    let decided = await decideOn(loaded, input, now, opts);
    if (decided.kind === "readClusterEvents") {
      loaded = await deps.store.addClusterEvents(loaded);
      decided = await decideOn(loaded, input, now, opts);
      if (decided.kind === "readClusterEvents") throw new Error("no election without events");
    }
    // Rows taken from this instance's copies stand only for a decision that writes nothing:
    // one that writes is decided again on rows read for it.
    if (loaded.copies && !changesNothing(loaded.state, decided.decision)) {
      await deps.store.refreshCopies(loaded);
      const again = await decideOn(loaded, input, now, opts);
      if (again.kind === "readClusterEvents") {
        loaded = await deps.store.addClusterEvents(loaded);
        decided = await decideOn(loaded, input, now, opts);
      } else decided = again;
      if (decided.kind === "readClusterEvents") throw new Error("no election without events");
    }
    firstBefore ??= loaded.state;
    const { decision } = decided;
    const committed = writesAnything(loaded.state, decision);
    if (committed)
      await commitDecision(deps.store, loaded, decision, {
        ...(opts.reporter ? { reporter: opts.reporter } : {}),
        ...(opts.audit ? { audit: opts.audit } : {}),
      });
    return { before: loaded.state, decision, changed: decided.changed, committed, now };
  };
  const { value, ops } = await counted(() =>
    opts.retryConflicts === false ? attempt() : withConflictRetry(attempt, deps.retry),
  );
  const round = roundOf(input, attempts, ops, firstBefore, value.before);
  const effects = decisionEffects(value.before, value.decision, round, deps.clock.now(), policy);
  if ((opts.effects ?? "run") === "run")
    runEffects(
      { telemetry: deps.telemetry, notify: (ns, p) => deps.notifier.afterCommit(ns, p) },
      effects,
    );
  return {
    before: value.before,
    decision: value.decision,
    ...(value.changed ? { changed: value.changed } : {}),
    committed: value.committed,
    now: value.now,
    attempts,
    ops,
    ...(opts.effects === "return" ? { effects } : {}),
  };
}

async function decideOn(loaded: Loaded, input: RoundInput, now: number, opts: RoundOptions) {
  const clusterEvents = loaded.onlyItsEvents === false;
  const inputs = opts.evaluationInputs
    ? await opts.evaluationInputs(loaded.state, clusterEvents)
    : undefined;
  return decideRound(
    { state: loaded.state, clusterEvents },
    inputs ? withInputs(input, inputs) : input,
    now,
    opts.policy,
  );
}

/** The input with the verdicts merged into its own (only inputs the core evaluates with). */
function withInputs(input: RoundInput, inputs: EvaluationInputs): RoundInput {
  switch (input.kind) {
    case "report":
    case "published":
    case "tick":
    case "hookOutcome":
      return { ...input, inputs: { ...input.inputs, ...inputs } };
    default:
      return input;
  }
}

/** Which effects a round derives (effects/derive.ts): every round derives them. */
function roundOf(
  input: RoundInput,
  attempts: number,
  ops: OpCounts,
  firstBefore: ClusterState | undefined,
  before: ClusterState,
): Round {
  switch (input.kind) {
    case "report":
      return {
        kind: "report",
        report: input.report,
        attempts,
        conflicts: ops.conflicts,
        ...(attempts > 1 && firstBefore && firstBefore !== before ? { firstBefore } : {}),
      };
    case "tick":
      return { kind: "tick" };
    default:
      return { kind: "change", input: input.kind };
  }
}
