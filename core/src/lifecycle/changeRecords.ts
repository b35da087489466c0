import { withEntry } from "@quiesce/protocol";
import type { ChangeRecordOutcomeName, ChangeRecordState } from "../model/changeRecordState";
import { isAdvisoryEvent } from "../model/eventTypes";
import { type ClusterState, CONTROL_PLANE, type EventRecord } from "../model/state";
import { isEnded } from "./evaluate";

/**
 * One Azure Change Safety change record per event (docs/control-plane.md, "Change Safety"), by
 * the control plane's claim → act → record pattern: the record is opened as soon as an event
 * Quiesce will act on is known (so every ARM write for it can name it as its change reference),
 * and closed once the event ended, saying how. A claim is committed under the event's ETag, so
 * one instance makes each call; a claim left by a crash is taken again after CLAIM_GRACE_MS;
 * the create is idempotent (the shell names the record after the event), so a call made twice
 * makes one record. At most MAX_ATTEMPTS calls per step; then the step gives up, visibly.
 */
export const CHANGE_RECORD_MAX_ATTEMPTS = 5;
export const CHANGE_RECORD_CLAIM_GRACE_MS = 60_000;

export interface ChangeRecordAction {
  eventKey: string;
  kind: "open" | "close";
  /** This call's number within its step (1 for the first). */
  attempt: number;
  event: EventRecord;
}

const claimFree = (cr: ChangeRecordState, now: number) =>
  cr.claimedAt === null || now - cr.claimedAt >= CHANGE_RECORD_CLAIM_GRACE_MS;

/**
 * Whether `e` needs a change record call now. Opened for an event announced ahead (not one first
 * seen Started: nothing is planned there), never for an advisory one (nothing is done for it).
 */
function due(e: EventRecord, now: number): ChangeRecordAction["kind"] | null {
  const cr = e.changeRecord;
  if (isEnded(e)) {
    if (!cr || cr.id === null) return null;
    return (cr.step === "open" || cr.step === "closing") && claimFree(cr, now) ? "close" : null;
  }
  if (e.firstSeenStarted || isAdvisoryEvent(e)) return null;
  if (!cr) return "open";
  return cr.step === "opening" && claimFree(cr, now) ? "open" : null;
}

/** The change record calls due in this cluster (the shell runs them only while enabled). */
export function dueChangeRecords(state: ClusterState, now: number): ChangeRecordAction[] {
  const out: ChangeRecordAction[] = [];
  for (const e of Object.values(state.events)) {
    const kind = due(e, now);
    if (!kind) continue;
    out.push({ eventKey: e.key, kind, attempt: nextAttempt(e, kind), event: e });
  }
  return out;
}

/** The number of the next call of `kind`: the step's calls so far, plus one. */
function nextAttempt(e: EventRecord, kind: ChangeRecordAction["kind"]): number {
  const cr = e.changeRecord;
  const sameStep = cr && (kind === "open" ? cr.step === "opening" : cr.step === "closing");
  return (sameStep ? cr.attempts : 0) + 1;
}

export interface ChangeRecordChange {
  state: ClusterState;
  transitions: Array<{
    eventKey: string;
    at: number;
    from: EventRecord["phase"];
    to: EventRecord["phase"];
    reason: string;
    vm: string;
  }>;
}

const put = (state: ClusterState, e: EventRecord, changeRecord: ChangeRecordState) => ({
  ...state,
  events: withEntry(state.events, e.key, { ...e, changeRecord }),
});

/** Claims call `attempt` of `kind`: null when it is no longer due, or another claim landed. */
export function claimChangeRecord(
  state: ClusterState,
  key: string,
  kind: ChangeRecordAction["kind"],
  attempt: number,
  now: number,
): ChangeRecordChange | null {
  const e = state.events[key];
  if (!e || due(e, now) !== kind || nextAttempt(e, kind) !== attempt) return null;
  const cr: ChangeRecordState = {
    id: e.changeRecord?.id ?? null,
    step: kind === "open" ? "opening" : "closing",
    claimedAt: now,
    attempts: attempt,
    lastError: e.changeRecord?.lastError ?? null,
    outcome: e.changeRecord?.outcome ?? null,
  };
  return { state: put(state, e, cr), transitions: [] };
}

/** What the RP answered to a claimed call. */
export type ChangeRecordOutcome =
  | { ok: true; id: string; status: string | null }
  | { ok: false; failure: string };

/**
 * How an ended event's change went, for the record's comments: Completed when it ran after
 * Quiesce approved it, Failed when it ran without (Azure started it at NotBefore, or unannounced:
 * the coordinated change did not happen as planned), Cancelled when Azure withdrew it.
 */
export function changeRecordOutcome(e: EventRecord): {
  outcome: ChangeRecordOutcomeName;
  comments: string;
} {
  if (e.phase === "Cancelled")
    return { outcome: "Cancelled", comments: "Cancelled: Azure withdrew the scheduled event." };
  if (e.approvedAt !== null)
    return {
      outcome: "Completed",
      comments: `Completed: the maintenance (${e.eventType}) ran once every VM was drained and approved (rule ${e.approvalRule ?? "unknown"}), and the VMs recovered.`,
    };
  return {
    outcome: "Failed",
    comments: `Failed: the maintenance (${e.eventType}) ran without Quiesce's approval (${e.firstSeenStarted ? "unannounced" : "Azure started it at NotBefore"}).`,
  };
}

/** Records the answer to call `attempt` of `kind` (null: not this event's current claim). */
export function recordChangeRecord(
  state: ClusterState,
  key: string,
  kind: ChangeRecordAction["kind"],
  attempt: number,
  outcome: ChangeRecordOutcome,
  now: number,
): ChangeRecordChange | null {
  const e = state.events[key];
  const cr = e?.changeRecord;
  const step = kind === "open" ? "opening" : "closing";
  if (!e || !cr || cr.step !== step || cr.attempts !== attempt || cr.claimedAt === null)
    return null;
  let next: ChangeRecordState;
  let reason: string;
  if (outcome.ok && kind === "open") {
    next = { ...cr, id: outcome.id, step: "open", claimedAt: null, attempts: 0, lastError: null };
    reason = `change record opened (Azure Change Safety): ${outcome.id}; the control plane's ARM writes for this event name it as their change reference`;
  } else if (outcome.ok) {
    const { outcome: how } = changeRecordOutcome(e);
    next = { ...cr, step: "closed", claimedAt: null, lastError: null, outcome: how };
    reason = `change record closed as ${how}: ${cr.id}`;
  } else {
    const last = attempt >= CHANGE_RECORD_MAX_ATTEMPTS;
    next = { ...cr, step: last ? "gaveUp" : step, claimedAt: null, lastError: outcome.failure };
    reason = `could not ${kind} the change record (attempt ${attempt} of ${CHANGE_RECORD_MAX_ATTEMPTS}): ${outcome.failure}${last ? "; no more attempts for this event" : "; retried at the next sweep"}`;
  }
  return {
    state: put(state, e, next),
    transitions: [
      { eventKey: key, at: now, from: e.phase, to: e.phase, reason, vm: CONTROL_PLANE },
    ],
  };
}
