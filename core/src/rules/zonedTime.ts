/**
 * Wall-clock time in an IANA zone with Intl alone (no time-zone dependency): what maintenance
 * windows (maintenanceWindow.ts) need, local dates and the instant a local time falls on, right
 * across daylight-saving changes.
 */

export interface LocalDate {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's wall clock at `t`, as if it were UTC (ms; seconds precision). */
function wallClock(t: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(t)))
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The zone's offset from UTC at instant `t`, in ms (Berlin in summer: +7,200,000). */
export function offsetMs(t: number, timeZone: string): number {
  return wallClock(Math.floor(t / 1000) * 1000, timeZone) - Math.floor(t / 1000) * 1000;
}

/** The local date at instant `t`. */
export function localDate(t: number, timeZone: string): LocalDate {
  const d = new Date(wallClock(t, timeZone));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** `days` after a local date (calendar arithmetic, no zone involved). */
export function addDays(d: LocalDate, days: number): LocalDate {
  const x = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: x.getUTCFullYear(), month: x.getUTCMonth() + 1, day: x.getUTCDate() };
}

/** 0 = Monday … 6 = Sunday. */
export function weekdayIndex(d: LocalDate): number {
  return (new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() + 6) % 7;
}

/**
 * The instant the zone's clocks show `minutes` after midnight of `d` (1440: the next midnight).
 * A local time skipped by a spring-forward change lands as far past the change as it was meant
 * to be after the last time before it (02:30 becomes 03:30 in Berlin): a window opening in the
 * gap opens just after it. A time shown twice (autumn) is the first of the two.
 */
export function instantOf(d: LocalDate, minutes: number, timeZone: string): number {
  const wall = Date.UTC(d.year, d.month - 1, d.day) + minutes * 60_000;
  // The offset an hour either side of the guess: where they differ, the change is near.
  const before = offsetMs(wall - 86_400_000 / 2, timeZone);
  const after = offsetMs(wall + 86_400_000 / 2, timeZone);
  const first = wall - before;
  if (before === after) return wall - offsetMs(first, timeZone);
  // Between the two offsets: the first instant whose wall clock matches, else (a gap) the
  // instant under the earlier offset, which the later offset shows as past the gap.
  const candidates = [wall - before, wall - after].sort((a, b) => a - b);
  for (const c of candidates) if (wallClock(c, timeZone) === wall) return c;
  return wall - before;
}
