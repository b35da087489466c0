import { quoteForError } from "@quiesce/protocol";

/**
 * The sweep timer's schedule as the Functions host reads it (azure-webjobs-sdk-extensions,
 * TimerSchedule.Create and CronSchedule.TryCreate): NCRONTAB of six space-separated fields, or
 * five without the seconds; else a .NET TimeSpan, run as a fixed interval. config.ts refuses what
 * the host could not read; the local host (`npm start`, tests) runs the same schedule itself, so
 * a schedule tried locally fires when it would in Azure.
 */
export type TimerSchedule =
  | { kind: "timeSpan"; intervalMs: number }
  /** Per field (second, minute, hour, day, month, day of week), the values it fires on. */
  | { kind: "cron"; fields: readonly ReadonlySet<number>[] };

interface CronField {
  name: string;
  min: number;
  max: number;
  /** Names a value may be given by: any case-insensitive prefix of one, as NCrontab reads them. */
  names?: readonly string[];
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** NCrontab's fields and ranges (CrontabFieldImpl), seconds first. */
const FIELDS: readonly CronField[] = [
  { name: "second", min: 0, max: 59 },
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS },
  { name: "day of week", min: 0, max: 6, names: DAYS },
];

type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

/** One value of a field: a number in range, or (month, day of week) a prefix of a name. */
function readValue(text: string, f: CronField): Read<number> {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= f.min && n <= f.max
      ? { ok: true, value: n }
      : { ok: false, problem: `${f.name} ${text} is not ${f.min}-${f.max}` };
  }
  const lower = text.toLowerCase();
  const named = /^[a-z]+$/.test(lower)
    ? f.names?.findIndex((n) => n.toLowerCase().startsWith(lower))
    : undefined;
  if (named !== undefined && named >= 0) return { ok: true, value: f.min + named };
  return {
    ok: false,
    problem: `${f.name} ${JSON.stringify(text)} is not ${f.min}-${f.max}${f.names ? ` or a ${f.name === "month" ? "month" : "day"}'s name` : ""}`,
  };
}

/**
 * One field (`*`, `5`, `1-5`, `*\/10`, `5/10`, `Mon-Fri`, lists of these) as the values it fires
 * on. A single value with a step runs from it to the field's end, as NCrontab reads `5/10`.
 */
function readField(text: string, f: CronField): Read<Set<number>> {
  const values = new Set<number>();
  for (const item of text.split(",")) {
    const [range = "", stepText, extra] = item.split("/");
    if (extra !== undefined || (stepText !== undefined && !/^[1-9]\d*$/.test(stepText)))
      return {
        ok: false,
        problem: `${f.name} ${JSON.stringify(item)} has no whole step after its /`,
      };
    const step = stepText === undefined ? 1 : Number(stepText);
    let first = f.min;
    let last = f.max;
    if (range !== "*") {
      const ends = range.split("-");
      if (ends.length > 2 || ends.some((e) => e === ""))
        return {
          ok: false,
          problem: `${f.name} ${JSON.stringify(item)} is not a value, a range a-b or *`,
        };
      const read = ends.map((e) => readValue(e, f));
      for (const r of read) if (!r.ok) return r;
      const [a, b] = read.map((r) => (r.ok ? r.value : 0));
      first = a as number;
      last = b ?? (stepText === undefined ? first : f.max);
    }
    for (let v = first; v <= last; v += step) values.add(v);
  }
  return { ok: true, value: values };
}

/** The schedule the host would run, or why it could not read it. */
export function readTimerSchedule(schedule: string): Read<TimerSchedule> {
  const text = schedule.trim();
  const timeSpan = /^(?:(\d+)\.)?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.\d{1,7})?)?$/.exec(text);
  if (timeSpan) {
    const [, days = "0", h = "0", m = "0", s = "0"] = timeSpan;
    if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59)
      return {
        ok: false,
        problem: `${quoteForError(schedule)} is not a TimeSpan: hours 0-23, minutes and seconds 0-59`,
      };
    const seconds = ((Number(days) * 24 + Number(h)) * 60 + Number(m)) * 60 + Number(s);
    return seconds === 0
      ? { ok: false, problem: `${quoteForError(schedule)} is a TimeSpan of zero` }
      : { ok: true, value: { kind: "timeSpan", intervalMs: seconds * 1000 } };
  }
  const parts = text.split(" ").filter((p) => p !== "");
  if (parts.length !== 5 && parts.length !== 6)
    return {
      ok: false,
      problem: `${quoteForError(schedule)}: expected an NCRONTAB schedule "{second} {minute} {hour} {day} {month} {day-of-week}" (e.g. "*/10 * * * * *") or a TimeSpan hh:mm:ss`,
    };
  // Five fields are NCrontab's format without seconds: it fires at second 0.
  const texts = parts.length === 6 ? parts : ["0", ...parts];
  const fields: Set<number>[] = [];
  for (const [i, part] of texts.entries()) {
    const read = readField(part, FIELDS[i] as CronField);
    if (!read.ok) return { ok: false, problem: `${quoteForError(schedule)}: ${read.problem}` };
    fields.push(read.value);
  }
  return { ok: true, value: { kind: "cron", fields } };
}

/**
 * Why the Functions host could not read this timer schedule, or undefined when it can. A bare
 * number is a TimeSpan of that many days to the host, so it is refused here as the typo it must be.
 */
export function scheduleProblem(schedule: string): string | undefined {
  const read = readTimerSchedule(schedule);
  return read.ok ? undefined : read.problem;
}

/** No NCRONTAB schedule the host reads is further apart than this (29 February, a leap year's). */
const SEARCH_YEARS = 8;

/**
 * The first time after `after` (ms since the epoch, UTC: the Functions host's time zone unless
 * WEBSITE_TIME_ZONE says otherwise) the cron schedule fires, or undefined when it never does
 * (e.g. "0 0 0 30 2 *"). Day and day of week must both match, as in NCrontab.
 */
export function nextOccurrence(
  schedule: Extract<TimerSchedule, { kind: "cron" }>,
  after: number,
): number | undefined {
  const [seconds, minutes, hours, days, months, weekdays] =
    schedule.fields as ReadonlySet<number>[];
  const t = new Date(Math.floor(after / 1000) * 1000 + 1000);
  const end = after + SEARCH_YEARS * 366 * 86_400_000;
  // Each miss moves to the start of the next unit that could match, so this runs at most a few
  // thousand times however sparse the schedule.
  while (t.getTime() <= end) {
    if (!months?.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0);
    } else if (!days?.has(t.getUTCDate()) || !weekdays?.has(t.getUTCDay())) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0);
    } else if (!hours?.has(t.getUTCHours())) t.setUTCHours(t.getUTCHours() + 1, 0, 0);
    else if (!minutes?.has(t.getUTCMinutes())) t.setUTCMinutes(t.getUTCMinutes() + 1, 0);
    else if (!seconds?.has(t.getUTCSeconds())) t.setUTCSeconds(t.getUTCSeconds() + 1);
    else return t.getTime();
  }
  return undefined;
}
