import type { EventDetail } from "@quiesce/cli";

/**
 * "Notice saved", the one computation behind the summary's column and the demo's reading of the
 * coordinator's metric quiesce.event.notice_saved: the share of the notice Quiesce had (first
 * sight → NotBefore) still left when the event was approved; 0 when it ran into NotBefore. The
 * coordinator computes it so (functions/src/telemetry/facts.ts) from NotBefore and its own clock,
 * which in Azure are one clock. In the demo they are not: NotBefore is on the simulator's
 * compressed clock and the coordinator's clock is real, so the metric it records reads close to 1
 * whatever happened (at 30x, a 15-minute notice is 30 real seconds). Here the three times are put
 * on the simulator's clock first.
 */

/** Real epoch ms → the simulator's epoch ms. */
export type ToSim = (realMs: number) => number;

/** The simulator's mapping, read off one view of its clock; identity for a manual clock. */
export function simClockOf(view: {
  simMs: number;
  realMs: number;
  timeScale: number | null;
}): ToSim {
  const scale = view.timeScale;
  return scale === null ? (t) => t : (t) => view.simMs + (t - view.realMs) * scale;
}

export interface NoticeSaved {
  /** 0..1. */
  share: number;
  /** Simulated seconds from approval to NotBefore (0 when it ran into NotBefore). */
  secondsLeft: number;
  /** The metric's `outcome` attribute this event was recorded under. */
  outcome: string;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** The metric's outcome for an approval rule (facts.ts approvalOutcome). */
function approvalOutcome(rule: string | null): string {
  if (rule === "forced") return "forced";
  if (rule === "allDrained") return "approved";
  return "approvedByPolicy";
}

/**
 * For an event the coordinator approved or saw run into NotBefore; null when the metric records
 * nothing for it (cancelled, unplanned, never seen, no NotBefore).
 */
export function noticeSaved(detail: EventDetail | null, toSim: ToSim): NoticeSaved | null {
  if (!detail?.notBefore) return null;
  const notBefore = Date.parse(detail.notBefore);
  const firstSeen = toSim(Date.parse(detail.firstSeenAt));
  if (!(notBefore > firstSeen)) return null;
  if (detail.approval.approvedAt !== null) {
    const approved = toSim(Date.parse(detail.approval.approvedAt));
    return {
      share: clamp01((notBefore - approved) / (notBefore - firstSeen)),
      secondsLeft: Math.max(0, Math.round((notBefore - approved) / 100) / 10),
      outcome: approvalOutcome(detail.approval.rule),
    };
  }
  const expired =
    detail.phase === "ExpiredAtNotBefore" ||
    detail.timeline.some((t) => t.kind === "transition" && t.to === "ExpiredAtNotBefore");
  return expired ? { share: 0, secondsLeft: 0, outcome: "expiredAtNotBefore" } : null;
}
