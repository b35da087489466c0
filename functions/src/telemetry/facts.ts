import {
  type ApprovalRule,
  type ClusterState,
  type Decision,
  isAdvisoryEvent,
  isEnded,
} from "@quiesce/core";
import type { HookRun } from "@quiesce/protocol/relay";

/**
 * What a decision means for metrics, read off the states before and after it. Pure; only
 * entities whose reference changed are looked at (the core's contract), so an idle heartbeat
 * costs a comparison or two.
 */

export type EventOutcome =
  | "approved"
  | "approvedByPolicy"
  | "forced"
  | "expiredAtNotBefore"
  | "cancelled"
  | "unplanned"
  /** An advisory event (a Spot rebalance recommendation) first seen: counted, never approved. */
  | "advisory";

export type Fact =
  | { kind: "outcome"; eventType: string; outcome: EventOutcome; rule?: string }
  /** First sight to every affected VM drained. */
  | { kind: "drained"; eventType: string; seconds: number }
  /** Last drain finished to approval confirmed. */
  | { kind: "approvalDelay"; eventType: string; seconds: number }
  /** Share of the Scheduled → NotBefore window left when the event was approved (0 when missed). */
  | { kind: "noticeSaved"; eventType: string; outcome: EventOutcome; ratio: number }
  | { kind: "hookFailed"; hook: "drain" | "recover"; reason: "failed" | "timeout" | "interrupted" };

/** The approval rule's outcome name, as counted in metrics. */
export function approvalOutcome(
  rule: ApprovalRule | null,
): "approved" | "approvedByPolicy" | "forced" {
  if (rule === "forced") return "forced";
  if (rule === "allDrained") return "approved";
  return "approvedByPolicy"; // a policy rule, or drains overdue under onDrainOverdue: proceed
}

const hookReason = (run: HookRun): "failed" | "timeout" | "interrupted" =>
  run.status === "interrupted"
    ? "interrupted"
    : /time(d)?[ -]?out/i.test(run.detail ?? "")
      ? "timeout"
      : "failed";

export function decisionFacts(before: ClusterState, d: Decision): Fact[] {
  const after = d.state;
  const out: Fact[] = [];
  for (const [key, e] of Object.entries(after.events)) {
    const b = before.events[key];
    if (e === b) continue;
    // Counted once, when first seen, with its event type; nothing else of it is an outcome.
    if (isAdvisoryEvent(e)) {
      if (!b) out.push({ kind: "outcome", eventType: e.eventType, outcome: "advisory" });
      continue;
    }
    if (!b && e.phase === "Unplanned")
      out.push({ kind: "outcome", eventType: e.eventType, outcome: "unplanned" });
    if (e.approvedAt !== null && (b?.approvedAt ?? null) === null) {
      const outcome = approvalOutcome(e.approvalRule);
      out.push({
        kind: "outcome",
        eventType: e.eventType,
        outcome,
        ...(e.approvalRule ? { rule: e.approvalRule } : {}),
      });
      const finished = Object.values(after.readiness[key] ?? {})
        .filter((r) => r.affected && r.drain?.status === "succeeded" && r.drain.finishedAt)
        .map((r) => Date.parse(r.drain?.finishedAt ?? ""));
      if (finished.length > 0)
        out.push({
          kind: "approvalDelay",
          eventType: e.eventType,
          seconds: Math.max(0, (e.approvedAt - Math.max(...finished)) / 1000),
        });
      if (e.notBefore !== null && e.notBefore > e.firstSeenAt)
        out.push({
          kind: "noticeSaved",
          eventType: e.eventType,
          outcome,
          ratio: clamp01((e.notBefore - e.approvedAt) / (e.notBefore - e.firstSeenAt)),
        });
    }
    if (b && b.phase !== e.phase) {
      if (e.phase === "ExpiredAtNotBefore") {
        out.push({ kind: "outcome", eventType: e.eventType, outcome: "expiredAtNotBefore" });
        out.push({
          kind: "noticeSaved",
          eventType: e.eventType,
          outcome: "expiredAtNotBefore",
          ratio: 0,
        });
      }
      if (e.phase === "Cancelled")
        out.push({ kind: "outcome", eventType: e.eventType, outcome: "cancelled" });
      if (
        (b.phase === "Observed" || b.phase === "Draining") &&
        (e.phase === "Ready" || e.phase === "Approving") &&
        !isEnded(e)
      )
        out.push({
          kind: "drained",
          eventType: e.eventType,
          seconds: Math.max(0, (e.phaseSince - e.firstSeenAt) / 1000),
        });
    }
  }
  for (const [key, rows] of Object.entries(after.readiness)) {
    const prevRows = before.readiness[key];
    if (rows === prevRows) continue;
    for (const [mk, r] of Object.entries(rows)) {
      const p = prevRows?.[mk];
      if (r === p) continue;
      for (const hook of ["drain", "recover"] as const) {
        const run = r[hook];
        const prevRun = p?.[hook];
        if (!run || (run.status !== "failed" && run.status !== "interrupted")) continue;
        if (prevRun && prevRun.attempt === run.attempt && prevRun.status === run.status) continue;
        out.push({ kind: "hookFailed", hook, reason: hookReason(run) });
      }
    }
  }
  return out;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
