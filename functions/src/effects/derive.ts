import {
  type ClusterState,
  type Coverage,
  type Decision,
  explain,
  isEnded,
  type ReportDecision,
  type RoundKind,
} from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import { coverageNotifications } from "../notify/coverageDue";
import {
  eventNotifications,
  fresh,
  imdsNotification,
  type Notification,
  newlyDue,
} from "../notify/due";
import { decisionFacts, type Fact } from "../telemetry/facts";

/**
 * What a decision means outside the cluster's state, derived in this one place from the state
 * before it, the decision and the round that made it: metrics and notifications (and, next,
 * control-plane actions). Pure: run.ts executes the result after the commit, so nothing here can
 * hold up or undo a decision, and an idle heartbeat costs a few reference comparisons.
 */

export interface Effects {
  cluster: string;
  /** The cluster's policy: which notifications it wants, and on which sinks. */
  policy: Policy;
  /** A report's answer: the reports, retries and conflicts counters. */
  report?: { outcome: "applied" | "stale"; attempts: number; conflicts: number };
  /** What the decision changed, as metrics (outcomes, durations, hook failures). */
  facts: Fact[];
  /** VMs holding up the cluster's active events, by reason (the sweep's gauge). */
  blockers?: Record<string, number>;
  /** The cluster's relays and groups (the sweep's gauges). */
  coverage?: Coverage;
  /** Due now, for the outbox, which sends each key once whoever queues it. */
  notifications: Notification[];
}

/** Which round decided: each reads a different part of the state, so each may derive more or less. */
export type Round =
  /**
   * One relay's report: its own events, so only what this decision newly made due. When it took
   * several attempts, `firstBefore` is what the first one read: notifications are due from there,
   * since an attempt that failed half-way may have written what the next one reads as old news.
   */
  | {
      kind: "report";
      report: RelayReport;
      attempts: number;
      conflicts: number;
      firstBefore?: ClusterState;
    }
  /**
   * Any other round (an operator's action, events Azure published, the control plane's claims
   * and outcomes, agentless hooks, load-balancer steps): like a report, what it changed.
   */
  | { kind: "change"; input: Exclude<RoundKind, "report" | "tick"> }
  /**
   * The sweep's tick of the whole cluster: every notification still due (level-triggered, so
   * whatever a report missed, e.g. a crash between commit and enqueue, or `blocked`, which only
   * time makes true) and the blockers gauge. A tick that changed nothing is not committed, and
   * derives no facts (its state is the one before).
   */
  | { kind: "tick" };

/** The effects of one decision, once committed (a tick's also when it changed nothing). */
export function decisionEffects(
  before: ClusterState,
  decision: Decision | ReportDecision,
  round: Round,
  now: number,
  policy: Policy,
): Effects {
  const after = decision.state;
  const effects: Effects = { cluster: after.cluster, policy, facts: [], notifications: [] };
  switch (round.kind) {
    case "report": {
      const { report, attempts, conflicts } = round;
      const applied = "reply" in decision && decision.reply.applied;
      effects.report = { outcome: applied ? "applied" : "stale", attempts, conflicts };
      const since = round.firstBefore ?? before;
      if (after === before && after === since && !report.imds) return effects;
      // Metrics count what the attempt that landed changed, once; notifications may be queued
      // twice (the outbox dedupes by key), so they are due from the first attempt's read.
      effects.facts = decisionFacts(before, decision);
      effects.notifications = newlyDue(since, after, now, policy);
      const imds = imdsNotification(after.cluster, report.vm.name, report.imds, policy);
      if (imds) effects.notifications.push(imds);
      return effects;
    }
    case "change":
      effects.facts = decisionFacts(before, decision);
      effects.notifications = newlyDue(before, after, now, policy);
      return effects;
    case "tick":
      effects.facts = decisionFacts(before, decision);
      effects.notifications = fresh(stillDue(after, now, policy), now);
      effects.blockers = blockersByReason(after, now, policy);
      return effects;
  }
}

/** Coverage alerts and the coverage gauges: what the sweep derives from every cluster's members. */
export function coverageEffects(c: Coverage, now: number, policy: Policy): Effects {
  return {
    cluster: c.cluster,
    policy,
    facts: [],
    coverage: c,
    notifications: coverageNotifications(c, now, policy),
  };
}

function stillDue(state: ClusterState, now: number, policy: Policy): Notification[] {
  return Object.values(state.events).flatMap((e) =>
    eventNotifications(state, e, now, policy, { withBlocked: true }),
  );
}

function blockersByReason(state: ClusterState, now: number, policy: Policy) {
  const blockers: Record<string, number> = {};
  for (const e of Object.values(state.events)) {
    if (isEnded(e) || e.approvedAt !== null) continue;
    for (const b of explain(state, e.key, now, policy)?.blockers ?? [])
      blockers[b.reason] = (blockers[b.reason] ?? 0) + 1;
  }
  return blockers;
}
