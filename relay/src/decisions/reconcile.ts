import { dict, entryOf, withEntry } from "@quiesce/protocol";
import {
  eventKey,
  isAdvisory,
  namesVm,
  type ScheduledEventsDocument,
} from "@quiesce/protocol/imds";
import type { ApprovalResult, EventHooks, HookRun } from "@quiesce/protocol/relay";
import type { RebalanceAction } from "../options";
import { drainHeld, firstSighting } from "./deferral";
import type { HookKind, RelayState, TrackedEvent } from "./state";

/**
 * The relay's pure decisions: functions of (state, input, now). The loops in shell/ feed them
 * documents (imdsWatcher.ts), hook outcomes (hookSupervisor.ts), directives (reporter.ts) and
 * approval results (approver.ts), and do what they say.
 */

export interface HookAction {
  kind: HookKind;
  key: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Records events that name this VM, refreshes their snapshot, and notes the ones that left. */
export function observeDocument(
  state: RelayState,
  doc: ScheduledEventsDocument,
  vmName: string,
  now: number,
): RelayState {
  const events = dict(Object.entries(state.events)); // EventIds come from IMDS: see dict.ts
  const present = new Set<string>();
  for (const event of doc.Events) {
    const key = eventKey(event.EventId);
    present.add(key);
    const known = entryOf(events, key);
    if (known) {
      events[key] = { ...known, event, goneAt: undefined };
    } else if (namesVm(event, vmName)) {
      // Only our own VM's events: every VM of the group sees every event of the group.
      events[key] = {
        eventId: event.EventId,
        event,
        firstSeenAt: iso(now),
        ...firstSighting(state, event, now),
      };
    }
  }
  for (const [key, rec] of Object.entries(events)) {
    if (!present.has(key) && rec.goneAt === undefined) events[key] = { ...rec, goneAt: iso(now) };
  }
  return { ...state, events };
}

const rerun = (run: HookRun | undefined) => run === undefined || run.status === "interrupted";
const settled = (run: HookRun | undefined) =>
  run?.status === "succeeded" || run?.status === "failed";

/**
 * Which hooks should start now. A hook already running is never started twice. An advisory event
 * (a Spot rebalance recommendation) drains like any other under `hooks` and not at all under
 * `none`; its recover waits while another event of this VM still drains, so a node that event
 * holds is never uncordoned in between (a Preempt that follows a recommendation replaces it in
 * the same document).
 */
export function dueHooks(
  state: RelayState,
  rebalance: RebalanceAction = "hooks",
  /** Holds (deferral.ts) end by this clock; absent, every hold still holds. */
  now = Number.NEGATIVE_INFINITY,
): HookAction[] {
  const actions: HookAction[] = [];
  const records = Object.entries(state.events);
  const othersDraining = records.some(
    ([, r]) =>
      !isAdvisory(r.event) && r.goneAt === undefined && !r.recoverRequested && !settled(r.drain),
  );
  for (const [key, rec] of records) {
    const inDocument = rec.goneAt === undefined;
    const advisory = isAdvisory(rec.event);
    const drains = !advisory || rebalance === "hooks";
    if (drains && inDocument && !rec.recoverRequested && rerun(rec.drain)) {
      // A maintenance window holds a drain not yet started; one started is never held back.
      if (rec.drain === undefined && drainHeld(rec, now)) continue;
      actions.push({ kind: "drain", key });
      continue;
    }
    // Recover is owed once we drained (whatever the outcome) and the event ended or the
    // coordinator asked; it waits for a running drain so the two never overlap.
    const owed = (!inDocument || rec.recoverRequested) && rec.drain !== undefined;
    const waits = rec.drain?.status === "running" || (advisory && othersDraining);
    if (owed && !waits && rerun(rec.recover)) {
      actions.push({ kind: "recover", key });
    }
  }
  return actions;
}

export function hookStarted(state: RelayState, action: HookAction, now: number): RelayState {
  const rec = entryOf(state.events, action.key);
  if (!rec) return state;
  const previous = rec[action.kind];
  const run: HookRun = {
    status: "running",
    attempt: (previous?.attempt ?? 0) + 1,
    startedAt: iso(now),
  };
  return { ...state, events: { ...state.events, [action.key]: { ...rec, [action.kind]: run } } };
}

export function hookFinished(
  state: RelayState,
  action: HookAction,
  outcome: { ok: boolean; detail: string },
  now: number,
): RelayState {
  const rec = entryOf(state.events, action.key);
  const run = rec?.[action.kind];
  if (!rec || !run) return state;
  const done: HookRun = {
    ...run,
    status: outcome.ok ? "succeeded" : "failed",
    finishedAt: iso(now),
    detail: outcome.detail.slice(0, 1024),
  };
  return { ...state, events: withEntry(state.events, action.key, { ...rec, [action.kind]: done }) };
}

/** A hook that was running when the relay stopped is interrupted: it runs again at next start. */
export function markInterrupted(state: RelayState, now: number, detail: string): RelayState {
  const events = dict<TrackedEvent>();
  for (const [key, rec] of Object.entries(state.events)) {
    const fix = (run: HookRun | undefined): HookRun | undefined =>
      run?.status === "running"
        ? { ...run, status: "interrupted", finishedAt: iso(now), detail }
        : run;
    events[key] = { ...rec, drain: fix(rec.drain), recover: fix(rec.recover) };
  }
  return { ...state, events };
}

/** The coordinator's recover directive: only for an event we drained for (idempotent). */
export function requestRecover(state: RelayState, eventId: string): RelayState {
  const key = eventKey(eventId);
  const rec = entryOf(state.events, key);
  if (!rec || rec.drain === undefined || rec.recoverRequested) return state;
  return { ...state, events: withEntry(state.events, key, { ...rec, recoverRequested: true }) };
}

export const APPROVALS_KEPT = 20;
export const FORGET_AFTER_MS = 60 * 60 * 1000;

const finished = (run: HookRun | undefined) =>
  run?.status === "succeeded" || run?.status === "failed";

/** Forget what the coordinator no longer needs, so state and reports stay bounded. */
export function prune(state: RelayState, now: number): RelayState {
  const events = dict<TrackedEvent>();
  for (const [key, rec] of Object.entries(state.events)) {
    const goneFor = rec.goneAt ? now - Date.parse(rec.goneAt) : 0;
    const settled = rec.drain === undefined || finished(rec.recover);
    if (rec.goneAt && settled && goneFor > FORGET_AFTER_MS) continue;
    if (rec.goneAt && rec.drain === undefined) continue; // never acted on: nothing to report
    events[key] = rec;
  }
  const approvals = state.approvals
    .filter((a) => now - Date.parse(a.at) <= FORGET_AFTER_MS)
    .slice(-APPROVALS_KEPT);
  return { ...state, events, approvals };
}

export function recordApprovals(
  state: RelayState,
  results: ApprovalResult[],
  now: number,
): RelayState {
  return prune({ ...state, approvals: [...state.approvals, ...results] }, now);
}

/** The `hooks` part of a report: every event we acted on, oldest first, bounded. */
export function reportedHooks(state: RelayState): EventHooks[] {
  return Object.values(state.events)
    .filter((r) => r.drain || r.recover)
    .sort((a, b) => a.firstSeenAt.localeCompare(b.firstSeenAt))
    .slice(-200)
    .map((r) => ({ eventId: r.eventId, drain: r.drain, recover: r.recover }));
}
