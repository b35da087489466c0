import { dict } from "@quiesce/protocol";
import { eventKey, isAdvisory, type ScheduledEvent } from "@quiesce/protocol/imds";
import type { Directive } from "@quiesce/protocol/relay";
import type { RelayState, TrackedEvent } from "./state";

/**
 * Maintenance windows, on the relay's side: the coordinator's defer directives hold the drain of
 * the events they name (protocol v1, DeferDirective). Every hold runs out on this relay's own
 * clock, so a coordinator that goes silent never keeps a drain from starting: the relay drains
 * when the hold ends (the safe direction; Azure's NotBefore does not wait).
 */

/**
 * How long a new event's drain waits for the answer to the report that first carried it, in a
 * cluster with windows. A relay reports a document change at once, so the answer normally comes
 * well within this; a slower one lets the drain start (a window can only make Quiesce later).
 */
export const ANSWER_WAIT_MS = 5_000;

/** Two holds of one event this close are one (an answer's round trip, whole seconds). */
const SAME_HOLD_MS = 2_000;

const iso = (ms: number) => new Date(ms).toISOString();
const after = (t: string | undefined, now: number) => t !== undefined && Date.parse(t) > now;

/** Whether the event's drain is held now (a defer directive, or the first answer awaited). */
export function drainHeld(rec: TrackedEvent, now: number): boolean {
  return after(rec.deferredUntil, now) || after(rec.awaitAnswerUntil, now);
}

/** A drain not started whose hold ran out: the shell checks on every IMDS poll, and starts it. */
export function holdEnded(state: RelayState, now: number): boolean {
  return Object.values(state.events).some(
    (r) =>
      r.drain === undefined &&
      r.goneAt === undefined &&
      (r.deferredUntil !== undefined || r.awaitAnswerUntil !== undefined) &&
      !drainHeld(r, now),
  );
}

/**
 * A new event of this VM: in a cluster with windows, its drain first awaits the answer, unless
 * its type is exempt or it is advisory (the coordinator never defers those).
 */
export function firstSighting(
  state: RelayState,
  event: Pick<ScheduledEvent, "EventType">,
  now: number,
): Partial<TrackedEvent> {
  const exempt = isAdvisory(event) || (state.windowsExempt ?? []).includes(event.EventType);
  return state.windows && !exempt ? { awaitAnswerUntil: iso(now + ANSWER_WAIT_MS) } : {};
}

/**
 * Applies an applied answer to the state: the events of the reported document are held as its
 * defer directives say, and released when they are not named (a later answer lifts a hold).
 * Events first seen after the report was built keep what they had: the answer says nothing of
 * them. A hold is measured from now, the answer's arrival (the relay's clock may be skewed).
 */
export function applyDeferrals(
  state: RelayState,
  reported: ReadonlySet<string>,
  directives: readonly Directive[],
  now: number,
): RelayState {
  const until = new Map<string, number>();
  let windows = false;
  let exempt: string[] | undefined;
  for (const d of directives) {
    if (d.kind !== "defer") continue;
    windows = true;
    exempt = d.exemptEventTypes ?? exempt;
    for (const id of d.eventIds) until.set(eventKey(id), now + d.untilSeconds * 1000);
  }
  const events = dict<TrackedEvent>();
  const windowsExempt = windows ? exempt : undefined;
  let changed =
    windows !== (state.windows ?? false) ||
    JSON.stringify(windowsExempt) !== JSON.stringify(state.windowsExempt);
  for (const [key, rec] of Object.entries(state.events)) {
    if (!reported.has(key)) {
      events[key] = rec;
      continue;
    }
    const held = until.get(key);
    // Every answer repeats the hold, measured afresh: within a couple of seconds it is the same
    // one, kept as it was so the state file is not rewritten (nor the log written) each time.
    const same =
      held !== undefined &&
      rec.deferredUntil !== undefined &&
      Math.abs(Date.parse(rec.deferredUntil) - held) < SAME_HOLD_MS;
    const deferredUntil =
      held !== undefined && held > now ? (same ? rec.deferredUntil : iso(held)) : undefined;
    if (deferredUntil === rec.deferredUntil && rec.awaitAnswerUntil === undefined) {
      events[key] = rec;
      continue;
    }
    const { deferredUntil: _d, awaitAnswerUntil: _a, ...rest } = rec;
    events[key] = deferredUntil ? { ...rest, deferredUntil } : rest;
    changed = true;
  }
  if (!changed) return state;
  const { windowsExempt: _e, ...rest } = state;
  return { ...rest, events, windows, ...(windowsExempt ? { windowsExempt } : {}) };
}

/** The events of a document, by key: what an answer to its report speaks for. */
export function reportedKeys(doc: { Events: { EventId: string }[] } | null): Set<string> {
  return new Set((doc?.Events ?? []).map((e) => eventKey(e.EventId)));
}
