import type { MaintenanceWindows, WeeklyWindow } from "@quiesce/protocol/policy";
import { WEEKDAYS } from "@quiesce/protocol/policy";
import { addDays, instantOf, type LocalDate, localDate, weekdayIndex } from "./zonedTime";

/**
 * Maintenance windows (policy `maintenanceWindows`): when an event's drain may start, and so when
 * it may be approved. A pure function of the policy, the event, when it was first seen and now.
 *
 * The drain start is the first allowed moment at or after the event was first seen: inside a
 * weekly window and outside every blackout (blackouts win). Computed from first sight, so it
 * does not move: once a drain may start it is never stopped by a window closing (a half-drained
 * VM serves worse than a drained one, and the approval must still come before NotBefore). A
 * window only makes Quiesce later, never Azure: if no allowed moment comes by NotBefore minus
 * `latestDrainStartSecondsBeforeNotBefore`, the drain starts then (the latest start), so the
 * event is still drained and approved before NotBefore.
 */

export type WindowDecision =
  /** The policy has no windows: drains start at once. */
  | { kind: "none" }
  /** Its type ignores windows (exemptEventTypes), or it is advisory: nothing to approve. */
  | { kind: "exempt"; why: string }
  /** No NotBefore (already Started): nothing left to hold. */
  | { kind: "noNotBefore" }
  /** The drain may start (since `from`), in or at the opening of a window. */
  | { kind: "inWindow"; window: string; from: number; waited: boolean; blackout: string | null }
  /** No window opened in time: the drain may start (since `from`), the latest start. */
  | { kind: "latestStart"; from: number; blackout: string | null }
  /** Not yet: the drain waits until `until` (a window's opening or the latest start). */
  | {
      kind: "deferred";
      until: number;
      /** Why not now: outside every weekly window, or inside a blackout. */
      reason: "nextWindow" | "blackout";
      /** What ends it: an allowed window opening, or the latest start before NotBefore. */
      endsAt: "window" | "latestStart";
      window: string | null;
      blackout: string | null;
    };

export interface WindowEvent {
  eventType: string;
  notBefore: number | null;
  firstSeenAt: number;
  advisory?: boolean;
}

/** Past this the weekly windows repeat: a search this long that found none never will. */
const SEARCH_DAYS = 15;

interface Span {
  start: number;
  end: number;
  name: string;
}

export function windowName(w: WeeklyWindow, timeZone: string): string {
  return w.name ?? `${w.days.join(",")} ${w.start}-${w.end} ${timeZone}`;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The weekly windows' occurrences that may overlap [from, to]. */
function windowSpans(w: MaintenanceWindows, from: number, to: number): Span[] {
  const spans: Span[] = [];
  const first = addDays(localDate(from, w.timeZone), -1); // one that opened yesterday may still run
  const last = localDate(to, w.timeZone);
  for (let d: LocalDate = first, i = 0; i <= SEARCH_DAYS + 2; d = addDays(d, 1), i++) {
    const day = WEEKDAYS[weekdayIndex(d)];
    for (const win of w.weekly) {
      if (!day || !win.days.includes(day)) continue;
      const open = minutesOf(win.start);
      const close = minutesOf(win.end);
      const start = instantOf(d, open, w.timeZone);
      const end =
        close > open
          ? instantOf(d, close, w.timeZone)
          : instantOf(addDays(d, 1), close, w.timeZone);
      if (end > from && start <= to) spans.push({ start, end, name: windowName(win, w.timeZone) });
    }
    if (d.year === last.year && d.month === last.month && d.day === last.day) break;
  }
  return spans;
}

const covering = (spans: readonly Span[], t: number) =>
  spans.find((s) => s.start <= t && t < s.end);

/** The first allowed moment in [from, to], with the window it falls in; null: none. */
function firstAllowed(
  w: MaintenanceWindows,
  from: number,
  to: number,
): { at: number; window: string } | null {
  const blackouts: Span[] = w.blackouts.map((b) => ({
    start: Date.parse(b.start),
    end: Date.parse(b.end),
    name: b.name,
  }));
  const always = w.weekly.length === 0;
  const windows = always ? [] : windowSpans(w, from, to);
  // The allowed set is windows minus blackouts, each a union of [start, end): its first moment is
  // `from`, a window's opening or a blackout's end.
  const candidates = [from, ...windows.map((s) => s.start), ...blackouts.map((b) => b.end)]
    .filter((t) => t >= from && t <= to)
    .sort((a, b) => a - b);
  for (const t of candidates) {
    const win = always ? { name: "any time (no weekly windows)" } : covering(windows, t);
    if (win && !covering(blackouts, t)) return { at: t, window: win.name };
  }
  return null;
}

export function decideWindow(
  policy: { maintenanceWindows?: MaintenanceWindows | undefined },
  event: WindowEvent,
  now: number,
): WindowDecision {
  const w = policy.maintenanceWindows;
  if (!w) return { kind: "none" };
  if (event.advisory) return { kind: "exempt", why: "advisory: nothing to approve" };
  if (w.exemptEventTypes.includes(event.eventType))
    return { kind: "exempt", why: `${event.eventType} is exempt (exemptEventTypes)` };
  if (event.notBefore === null) return { kind: "noNotBefore" };
  const from = event.firstSeenAt;
  const latest = event.notBefore - w.latestDrainStartSecondsBeforeNotBefore * 1000;
  const horizon = Math.min(latest, from + SEARCH_DAYS * 86_400_000);
  const allowed = from <= horizon ? firstAllowed(w, from, horizon) : null;
  // What held it at first sight: a blackout (the one it fell in, or the one whose end let the
  // window open late), else no window.
  const blackout =
    (
      w.blackouts.find((b) => Date.parse(b.start) <= from && from < Date.parse(b.end)) ??
      w.blackouts.find(
        (b) => allowed !== null && allowed.at > from && Date.parse(b.end) === allowed.at,
      )
    )?.name ?? null;
  const start = allowed?.at ?? Math.max(from, latest);
  if (now < start && start > from)
    return {
      kind: "deferred",
      until: start,
      reason: blackout ? "blackout" : "nextWindow",
      endsAt: allowed ? "window" : "latestStart",
      window: allowed?.window ?? null,
      blackout,
    };
  if (allowed)
    return {
      kind: "inWindow",
      window: allowed.window,
      from: start,
      waited: start > from,
      blackout,
    };
  return { kind: "latestStart", from: start, blackout };
}

/** The drain of this event must wait (no relay drains it, no coordinator hook runs, no approval). */
export const isDeferred = (d: WindowDecision): d is Extract<WindowDecision, { kind: "deferred" }> =>
  d.kind === "deferred";

const iso = (ms: number) => new Date(ms).toISOString();

/** In words, for "waiting for" and the status view: which rule applied. */
export function describeWindow(d: WindowDecision): string | null {
  switch (d.kind) {
    case "none":
      return null;
    case "exempt":
      return `maintenance windows: ${d.why}`;
    case "noNotBefore":
      return "maintenance windows: no NotBefore (already started), nothing to hold";
    case "inWindow":
      return d.waited
        ? `maintenance window ${d.window}: drain started when it opened at ${iso(d.from)}${d.blackout ? ` (after blackout ${d.blackout})` : ""}`
        : `maintenance window ${d.window}: inside it at first sight`;
    case "latestStart":
      return `no maintenance window before NotBefore: drain at the latest start, ${iso(d.from)}${d.blackout ? ` (blackout ${d.blackout})` : ""}`;
    case "deferred": {
      const why = d.blackout ? `blackout ${d.blackout}` : "outside every maintenance window";
      return d.endsAt === "window"
        ? `${why}: drain deferred until window ${d.window} opens at ${iso(d.until)}`
        : `${why}, no window before NotBefore: drain deferred to the latest start, ${iso(d.until)}`;
    }
  }
}
