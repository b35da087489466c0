/**
 * The timeline bar of an event, as pure data: which phase held which stretch of time, where
 * NotBefore falls, laid out as percentages of one range. From the event's own timestamps (the
 * overview) or from its transition history (the event page), which is exact.
 */

export interface TimelineInput {
  phase: string;
  firstSeenAt: string | null;
  approvedAt: string | null;
  startedAt: string | null;
  endedAt: string | null;
  notBefore: string | null;
}

export interface Transition {
  at: string;
  to: string;
}

export interface Segment {
  phase: string;
  start: number;
  end: number;
  leftPct: number;
  widthPct: number;
}

export interface Marker {
  label: string;
  at: number;
  leftPct: number;
}

export interface TimelineBar {
  start: number;
  end: number;
  segments: Segment[];
  markers: Marker[];
}

const ms = (t: string | null | undefined) => (t ? Date.parse(t) : Number.NaN);
const ok = (n: number) => Number.isFinite(n);

/** Phase stretches from the event's milestones: draining until approval, approved until start, started until the end. */
export function spansFromMilestones(e: TimelineInput, now: number) {
  const first = ms(e.firstSeenAt);
  if (!ok(first)) return [];
  const end = ok(ms(e.endedAt)) ? ms(e.endedAt) : now;
  const approved = ms(e.approvedAt);
  const started = ms(e.startedAt);
  const cuts: { phase: string; at: number }[] = [{ phase: "Draining", at: first }];
  if (ok(approved)) cuts.push({ phase: "Approving", at: approved });
  if (ok(started)) cuts.push({ phase: "Started", at: started });
  // Until an approval or start, the current phase names the whole stretch (Observed, Ready, held...).
  if (!ok(approved) && !ok(started)) (cuts[0] as { phase: string }).phase = e.phase;
  return toSpans(cuts, end);
}

/** Phase stretches from the stored transitions (each: from `at`, the event was in phase `to`). */
export function spansFromTransitions(
  transitions: readonly Transition[],
  firstSeenAt: string | null,
  endedAt: string | null,
  now: number,
) {
  const cuts = transitions
    .map((t) => ({ phase: t.to, at: ms(t.at) }))
    .filter((c) => ok(c.at))
    .sort((a, b) => a.at - b.at);
  const first = ms(firstSeenAt);
  if (ok(first) && (cuts.length === 0 || (cuts[0] as { at: number }).at > first))
    cuts.unshift({ phase: "Observed", at: first });
  const end = ok(ms(endedAt)) ? ms(endedAt) : now;
  return toSpans(cuts, end);
}

function toSpans(cuts: { phase: string; at: number }[], end: number) {
  const spans: { phase: string; start: number; end: number }[] = [];
  cuts.forEach((c, i) => {
    const next = cuts[i + 1];
    const stop = next ? next.at : end;
    // An ended event's final phase (Completed, Cancelled...) is a point, not a stretch.
    if (stop > c.at || (!next && stop === c.at && spans.length === 0))
      spans.push({ phase: c.phase, start: c.at, end: Math.max(stop, c.at) });
  });
  return spans;
}

/** Lays spans and NotBefore out on one range, wide enough to show both. */
export function layoutBar(
  spans: readonly { phase: string; start: number; end: number }[],
  notBefore: string | null,
  now: number,
): TimelineBar {
  const nb = ms(notBefore);
  const points = spans.flatMap((s) => [s.start, s.end]);
  if (ok(nb)) points.push(nb);
  if (points.length === 0) points.push(now);
  const start = Math.min(...points);
  const end = Math.max(...points, start + 1);
  const pct = (t: number) => Math.round(((t - start) / (end - start)) * 10_000) / 100;
  return {
    start,
    end,
    segments: spans.map((s) => ({
      ...s,
      leftPct: pct(s.start),
      widthPct: Math.max(0.5, pct(s.end) - pct(s.start)),
    })),
    markers: ok(nb) ? [{ label: "NotBefore", at: nb, leftPct: pct(nb) }] : [],
  };
}
