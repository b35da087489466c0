import { z } from "zod";
import { KNOWN_EVENT_TYPES } from "../imds/scheduledEvents";
import { IsoTime } from "../names";

/**
 * When a cluster's drains (and so its approvals) may happen (docs/coordinator.md, "Maintenance
 * windows"): weekly windows in one time zone, minus one-off blackouts. A window only ever makes
 * Quiesce later, never Azure: when no window opens in time, the drain starts at the latest start
 * (`latestDrainStartSecondsBeforeNotBefore`) so the event is still approved before `NotBefore`.
 * Absent: no windows, drains start at once (the behaviour without this field).
 */

export const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Whether Intl knows the zone: the only time-zone database the coordinator uses. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not an IANA time zone known to Intl (e.g. Europe/Berlin, UTC)`,
  });

const Name = z.string().regex(/^[A-Za-z0-9._ -]{1,64}$/, "name: 1-64 letters, digits, space . _ -");

/** "HH:MM" local time; the end of a window may also be "24:00" (midnight at its end). */
const TimeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a local time HH:MM, 00:00-23:59");
const EndOfDay = z
  .string()
  .regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, "a local time HH:MM, 00:00-24:00");

const oneOf = (values: readonly string[], what: string) =>
  z.string().refine((v) => values.includes(v), {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not ${what}: one of ${values.join(", ")} (case as written)`,
  });

/**
 * Opens on each of `days` at `start` local time and closes at `end`; an `end` at or before
 * `start` closes the next day (22:00-04:00 on Fri runs into Saturday morning).
 */
export const WeeklyWindow = z
  .strictObject({
    /** Shown in status ("window nights"); without it the window is named by its days and times. */
    name: Name.optional(),
    days: z
      .array(oneOf(WEEKDAYS, "a day"))
      .min(1)
      .max(7)
      .refine((ds) => new Set(ds).size === ds.length, "days must not repeat"),
    start: TimeOfDay,
    end: EndOfDay,
  })
  .refine((w) => w.start !== w.end, {
    error: "start and end are equal: say 00:00-24:00 for a whole day",
    path: ["end"],
  });
export type WeeklyWindow = z.infer<typeof WeeklyWindow>;

/** A one-off period with no drain start, whatever the weekly windows say (a change freeze). */
export const Blackout = z
  .strictObject({
    name: Name,
    /** ISO 8601 with an offset or Z: an instant, whatever the cluster's time zone. */
    start: IsoTime,
    end: IsoTime,
  })
  .refine((b) => Date.parse(b.end) > Date.parse(b.start), {
    error: "end must be after start",
    path: ["end"],
  });
export type Blackout = z.infer<typeof Blackout>;

export const MaintenanceWindows = z.strictObject({
  timeZone: TimeZone,
  /** Empty: every time is inside a window, and only the blackouts restrict. */
  weekly: z.array(WeeklyWindow).max(32).default([]),
  blackouts: z
    .array(Blackout)
    .max(64)
    .default([])
    .refine(
      (bs) => new Set(bs.map((b) => b.name)).size === bs.length,
      "blackout names must be unique",
    ),
  /** Event types that ignore windows: a Spot eviction or a deletion cannot wait for one. */
  exemptEventTypes: z
    .array(oneOf(KNOWN_EVENT_TYPES, "an event type"))
    .max(16)
    .default(["Preempt", "Terminate"]),
  /**
   * The latest a drain may start, before NotBefore, whatever the windows say: the drain then
   * still has this long to finish before Azure starts the event anyway. Must exceed the
   * policy's `drainDeadlineSecondsBeforeNotBefore`.
   */
  latestDrainStartSecondsBeforeNotBefore: z.number().int().min(1).max(86_400).default(600),
});
export type MaintenanceWindows = z.infer<typeof MaintenanceWindows>;

/**
 * The check across fields a merged policy needs (an override may change either side): the
 * latest start must leave the drain its deadline, or a window could make every drain overdue.
 */
export function maintenanceWindowsProblem(p: {
  maintenanceWindows?: MaintenanceWindows | undefined;
  drainDeadlineSecondsBeforeNotBefore: number;
}): string | null {
  const w = p.maintenanceWindows;
  if (!w || w.latestDrainStartSecondsBeforeNotBefore > p.drainDeadlineSecondsBeforeNotBefore)
    return null;
  return `maintenanceWindows.latestDrainStartSecondsBeforeNotBefore (${w.latestDrainStartSecondsBeforeNotBefore}) must be greater than drainDeadlineSecondsBeforeNotBefore (${p.drainDeadlineSecondsBeforeNotBefore}): a drain started at the latest start must have time to finish before its deadline`;
}

type WindowedPolicy = Parameters<typeof maintenanceWindowsProblem>[0];

/**
 * The problems of a merged policy set, each with its path: said once, where it arises (a cluster
 * inheriting the default's problem is not named again).
 */
export function maintenanceWindowsProblems(
  base: WindowedPolicy,
  clusters: ReadonlyMap<string, WindowedPolicy>,
): [string[], string][] {
  const inDefault = maintenanceWindowsProblem(base);
  if (inDefault) return [[["default", "maintenanceWindows"], inDefault]];
  return [...clusters].flatMap(([c, p]): [string[], string][] => {
    const message = maintenanceWindowsProblem(p);
    return message ? [[["clusters", c, "maintenanceWindows"], message]] : [];
  });
}
