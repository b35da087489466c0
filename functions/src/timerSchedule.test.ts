import { describe, expect, it } from "vitest";
import { nextOccurrence, readTimerSchedule, type TimerSchedule } from "./timerSchedule";

const cron = (text: string) => {
  const read = readTimerSchedule(text);
  if (!read.ok) throw new Error(read.problem);
  if (read.value.kind !== "cron") throw new Error(`${text} is not NCRONTAB`);
  return read.value;
};
const next = (text: string, after: string) => {
  const t = nextOccurrence(cron(text), Date.parse(after));
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe("the sweep timer's schedule, as the Functions host runs it", () => {
  it("fires every tenth second on the clock for */10, not ten seconds after whenever it started", () => {
    expect(next("*/10 * * * * *", "2026-11-27T10:00:03.500Z")).toBe("2026-11-27T10:00:10.000Z");
    expect(next("*/10 * * * * *", "2026-11-27T10:00:10.000Z")).toBe("2026-11-27T10:00:20.000Z");
  });

  it("reads five fields as NCrontab's format without seconds: at second 0 of each matching minute", () => {
    expect(next("*/5 * * * *", "2026-11-27T10:01:30Z")).toBe("2026-11-27T10:05:00.000Z");
  });

  it("runs a daily schedule once a day, at its time in UTC", () => {
    expect(next("0 30 2 * * *", "2026-11-27T10:00:00Z")).toBe("2026-11-28T02:30:00.000Z");
  });

  it("needs both the day and the day of week to match, and reads names and ranges of them", () => {
    // 2026-11-27 is a Friday: the next weekday at 09:00 is Monday the 30th.
    expect(next("0 0 9 * * Mon-Fri", "2026-11-27T10:00:00Z")).toBe("2026-11-30T09:00:00.000Z");
    // The 13th that is a Friday: in 2027, August.
    expect(next("0 0 0 13 * 5", "2026-11-27T00:00:00Z")).toBe("2027-08-13T00:00:00.000Z");
    expect(next("0 0 0 1 jan *", "2026-11-27T00:00:00Z")).toBe("2027-01-01T00:00:00.000Z");
  });

  it("reads lists, stepped ranges and a value with a step (from it to the field's end)", () => {
    expect([...(cron("1,5-7,20-30/5 * * * * *").fields[0] ?? [])]).toEqual([
      1, 5, 6, 7, 20, 25, 30,
    ]);
    expect([...(cron("50/3 * * * * *").fields[0] ?? [])]).toEqual([50, 53, 56, 59]);
  });

  it("finds 29 February years away, and says never for a day no month has", () => {
    expect(next("0 0 0 29 2 *", "2026-11-27T00:00:00Z")).toBe("2028-02-29T00:00:00.000Z");
    expect(next("0 0 0 30 2 *", "2026-11-27T00:00:00Z")).toBeUndefined();
  });

  it("runs a TimeSpan as a fixed interval", () => {
    expect(readTimerSchedule("00:00:30")).toEqual({
      ok: true,
      value: { kind: "timeSpan", intervalMs: 30_000 } satisfies TimerSchedule,
    });
    expect(readTimerSchedule("1.02:00:00")).toEqual({
      ok: true,
      value: { kind: "timeSpan", intervalMs: 26 * 3_600_000 },
    });
  });

  it("says what the host could not read, naming the field", () => {
    expect(readTimerSchedule("every 10s")).toMatchObject({ ok: false });
    expect(readTimerSchedule("*/10 * 25 * * *")).toEqual({
      ok: false,
      problem: expect.stringContaining("hour 25 is not 0-23"),
    });
  });
});
