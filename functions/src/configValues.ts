import { parseJsonWith, quoteForError } from "@quiesce/protocol";
import { z } from "zod";

/**
 * Schemas of the coordinator's setting values that need more than a line (config.ts names the
 * settings and puts these together): JSON settings, the shared relay identities and the sweep's
 * schedule. No setting is named here; an error gets the setting's name from where it is used.
 */

/** A setting holding JSON text: parsed here, then checked by `schema` (its issues keep their paths). */
export const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      const parsed = parseJsonWith(z.unknown(), text);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    })
    .pipe(schema);

/**
 * `{"<identity resource id>": ["<scale set resource id>", ...]}`, keyed in lower case (ARM ids
 * are case-insensitive) once parsed.
 */
export const SharedRelayIdentities = json(
  z.record(
    z
      .string()
      .regex(
        /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/[^/]+$/i,
        "a user-assigned identity's resource id",
      ),
    z
      .array(
        z
          .string()
          .regex(
            /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/[^/]+$/i,
            "a scale set's resource id",
          ),
      )
      .min(1),
  ),
).transform((r) => new Map(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v])));

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

/** Why one value of a field is unreadable, or undefined when it reads. */
function valueProblem(text: string, f: CronField): string | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= f.min && n <= f.max ? undefined : `${f.name} ${text} is not ${f.min}-${f.max}`;
  }
  const lower = text.toLowerCase();
  if (f.names && /^[a-z]+$/.test(lower) && f.names.some((n) => n.toLowerCase().startsWith(lower)))
    return undefined;
  return `${f.name} ${JSON.stringify(text)} is not ${f.min}-${f.max}${f.names ? ` or a ${f.name === "month" ? "month" : "day"}'s name` : ""}`;
}

/** Why one field (`*`, `5`, `1-5`, `*\/10`, `Mon-Fri`, lists of these) is unreadable. */
function fieldProblem(text: string, f: CronField): string | undefined {
  for (const item of text.split(",")) {
    const [range = "", step, extra] = item.split("/");
    if (extra !== undefined || (step !== undefined && !/^[1-9]\d*$/.test(step)))
      return `${f.name} ${JSON.stringify(item)} has no whole step after its /`;
    if (range === "*") continue;
    const ends = range.split("-");
    if (ends.length > 2 || ends.some((e) => e === ""))
      return `${f.name} ${JSON.stringify(item)} is not a value, a range a-b or *`;
    for (const e of ends) {
      const problem = valueProblem(e, f);
      if (problem) return problem;
    }
  }
  return undefined;
}

const HINT =
  'expected an NCRONTAB schedule "{second} {minute} {hour} {day} {month} {day-of-week}" (e.g. "*/10 * * * * *") or a TimeSpan hh:mm:ss';

/**
 * Why the Functions host could not read this timer schedule, or undefined when it can. Its rules
 * (azure-webjobs-sdk-extensions, TimerSchedule.Create and CronSchedule.TryCreate): NCRONTAB of
 * six space-separated fields, or five without the seconds; else a .NET TimeSpan. A bare number is
 * a TimeSpan of that many days to the host, so it is refused here as the typo it must be.
 */
export function scheduleProblem(schedule: string): string | undefined {
  const text = schedule.trim();
  const timeSpan = /^(?:(\d+)\.)?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.\d{1,7})?)?$/.exec(text);
  if (timeSpan) {
    const [, days = "0", h = "0", m = "0", s = "0"] = timeSpan;
    if (Number(h) > 23 || Number(m) > 59 || Number(s) > 59)
      return `${quoteForError(schedule)} is not a TimeSpan: hours 0-23, minutes and seconds 0-59`;
    return Number(days) + Number(h) + Number(m) + Number(s) === 0
      ? `${quoteForError(schedule)} is a TimeSpan of zero`
      : undefined;
  }
  const parts = text.split(" ").filter((p) => p !== "");
  if (parts.length !== 5 && parts.length !== 6) return `${quoteForError(schedule)}: ${HINT}`;
  const fields = parts.length === 6 ? FIELDS : FIELDS.slice(1);
  for (const [i, part] of parts.entries()) {
    const problem = fieldProblem(part, fields[i] as CronField);
    if (problem) return `${quoteForError(schedule)}: ${problem}`;
  }
  return undefined;
}

/** The sweep timer's schedule, refused (naming the field at fault) when the host could not read it. */
export const TimerSchedule = z.string().superRefine((s, ctx) => {
  const problem = scheduleProblem(s);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
