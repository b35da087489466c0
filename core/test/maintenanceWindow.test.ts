import { type MaintenanceWindows, PolicySet, WEEKDAYS } from "@quiesce/protocol/policy";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideWindow, describeWindow } from "../src";
import { instantOf } from "../src/rules/zonedTime";

/** The maintenance-window rule on its own: time zones, DST, wrap-around, blackouts, latest start. */

const windows = (w: Partial<MaintenanceWindows> & Pick<MaintenanceWindows, "timeZone">) => ({
  maintenanceWindows: {
    weekly: [],
    blackouts: [],
    exemptEventTypes: ["Preempt", "Terminate"],
    latestDrainStartSecondsBeforeNotBefore: 600,
    ...w,
  } satisfies MaintenanceWindows,
});
const at = (s: string) => Date.parse(s);
const freeze = (firstSeen: string, notBefore: string | null) => ({
  eventType: "Freeze",
  firstSeenAt: at(firstSeen),
  notBefore: notBefore === null ? null : at(notBefore),
});
const DAYS = 86_400_000;

describe("maintenance windows: the rule", () => {
  const nights = windows({
    timeZone: "Europe/Berlin",
    weekly: [{ name: "nights", days: ["Fri"], start: "22:00", end: "04:00" }],
  });

  it("decides nothing without windows, and exempts the listed types and advisory events", () => {
    expect(decideWindow({}, freeze("2026-06-01T10:00:00Z", "2026-06-01T10:15:00Z"), 0)).toEqual({
      kind: "none",
    });
    const preempt = {
      ...freeze("2026-06-01T10:00:00Z", "2026-06-01T10:00:30Z"),
      eventType: "Preempt",
    };
    expect(decideWindow(nights, preempt, at("2026-06-01T10:00:00Z")).kind).toBe("exempt");
    const advisory = { ...freeze("2026-06-01T10:00:00Z", null), advisory: true };
    expect(decideWindow(nights, advisory, at("2026-06-01T10:00:00Z")).kind).toBe("exempt");
    expect(decideWindow(nights, freeze("2026-06-01T10:00:00Z", null), 0).kind).toBe("noNotBefore");
  });

  it("a window that wraps past midnight still holds the next morning, and opens on its day", () => {
    // Saturday 2026-06-06 01:30 in Berlin (CEST, UTC+2): inside Friday's 22:00-04:00.
    const inside = freeze("2026-06-05T23:30:00Z", "2026-06-06T06:00:00Z");
    const d = decideWindow(nights, inside, at("2026-06-05T23:30:00Z"));
    expect(d).toMatchObject({ kind: "inWindow", window: "nights", waited: false });
    // Saturday 04:30: closed until Friday 22:00 (20:00Z), which comes before NotBefore − 600 s.
    const after = freeze("2026-06-06T02:30:00Z", "2026-06-13T00:00:00Z");
    expect(decideWindow(nights, after, at("2026-06-06T02:30:00Z"))).toMatchObject({
      kind: "deferred",
      until: at("2026-06-12T20:00:00Z"),
      reason: "nextWindow",
      endsAt: "window",
      window: "nights",
    });
    // Once it opened, a window closing does not stop the drain: decided from first sight.
    expect(decideWindow(nights, after, at("2026-06-12T23:00:00Z"))).toMatchObject({
      kind: "inWindow",
      from: at("2026-06-12T20:00:00Z"),
      waited: true,
    });
  });

  it("follows the zone's clock across daylight-saving changes (Europe/Berlin, spring and autumn)", () => {
    const daily = windows({
      timeZone: "Europe/Berlin",
      weekly: [{ days: [...WEEKDAYS], start: "22:00", end: "23:00" }],
    });
    // Saturday 28 March 2026 is CET (UTC+1); Sunday 29 March CEST (UTC+2): 22:00 local moves.
    const sat = freeze("2026-03-28T12:00:00Z", "2026-04-05T00:00:00Z");
    expect(decideWindow(daily, sat, sat.firstSeenAt)).toMatchObject({
      until: at("2026-03-28T21:00:00Z"),
    });
    const sun = freeze("2026-03-29T12:00:00Z", "2026-04-05T00:00:00Z");
    expect(decideWindow(daily, sun, sun.firstSeenAt)).toMatchObject({
      until: at("2026-03-29T20:00:00Z"),
    });
    // Autumn, 25 October 2026: back to UTC+1 at 03:00 CEST.
    const oct = freeze("2026-10-25T12:00:00Z", "2026-11-01T00:00:00Z");
    expect(decideWindow(daily, oct, oct.firstSeenAt)).toMatchObject({
      until: at("2026-10-25T21:00:00Z"),
    });
    // A local time in the spring gap (02:30 does not exist) opens as long after the change.
    expect(instantOf({ year: 2026, month: 3, day: 29 }, 150, "Europe/Berlin")).toBe(
      at("2026-03-29T01:30:00Z"),
    );
    // One shown twice in autumn is the first of the two (02:30 CEST).
    expect(instantOf({ year: 2026, month: 10, day: 25 }, 150, "Europe/Berlin")).toBe(
      at("2026-10-25T00:30:00Z"),
    );
  });

  it("a blackout covering a window wins, and the drain starts when it ends, still in the window", () => {
    const p = windows({
      timeZone: "UTC",
      weekly: [{ name: "evening", days: ["Mon"], start: "20:00", end: "23:00" }],
      blackouts: [
        { name: "release-freeze", start: "2026-06-01T19:00:00Z", end: "2026-06-01T21:30:00Z" },
      ],
    });
    const e = freeze("2026-06-01T20:10:00Z", "2026-06-02T00:00:00Z"); // Monday, in window and blackout
    const d = decideWindow(p, e, e.firstSeenAt);
    expect(d).toMatchObject({
      kind: "deferred",
      until: at("2026-06-01T21:30:00Z"),
      reason: "blackout",
      blackout: "release-freeze",
      window: "evening",
    });
    expect(describeWindow(d)).toContain("blackout release-freeze");
  });

  it("with no window before NotBefore, defers to the latest start and then lets the drain start", () => {
    const e = freeze("2026-06-02T10:00:00Z", "2026-06-02T10:15:00Z"); // Tuesday; window only Fridays
    const d = decideWindow(nights, e, e.firstSeenAt);
    expect(d).toMatchObject({
      kind: "deferred",
      until: at("2026-06-02T10:05:00Z"),
      endsAt: "latestStart",
    });
    expect(describeWindow(d)).toContain("no window before NotBefore");
    expect(decideWindow(nights, e, at("2026-06-02T10:05:00Z"))).toMatchObject({
      kind: "latestStart",
    });
    // First seen past the latest start already: at once.
    const late = freeze("2026-06-02T10:12:00Z", "2026-06-02T10:15:00Z");
    expect(decideWindow(nights, late, late.firstSeenAt)).toMatchObject({
      kind: "latestStart",
      from: late.firstSeenAt,
    });
  });

  it("never puts the drain start past NotBefore − latestDrainStart (or first sight, if later), for any policy and time", () => {
    const window = fc.record({
      days: fc.subarray([...WEEKDAYS], { minLength: 1 }),
      start: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })),
      end: fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })),
    });
    const hhmm = ([h, m]: [number, number]) =>
      `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
    const base = at("2026-01-01T00:00:00Z");
    fc.assert(
      fc.property(
        fc.constantFrom(
          "UTC",
          "Europe/Berlin",
          "America/New_York",
          "Australia/Lord_Howe",
          "Asia/Kolkata",
        ),
        fc.array(window, { maxLength: 3 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 370 * 24 }), fc.integer({ min: 1, max: 72 })), {
          maxLength: 3,
        }),
        fc.integer({ min: 0, max: 365 * DAYS }),
        fc.integer({ min: 0, max: 20 * DAYS }),
        fc.integer({ min: 61, max: 7200 }),
        (timeZone, ws, bs, seen, notice, latestS) => {
          const p = windows({
            timeZone,
            weekly: ws
              .filter((w) => hhmm(w.start) !== hhmm(w.end))
              .map((w) => ({ days: w.days, start: hhmm(w.start), end: hhmm(w.end) })),
            blackouts: bs.map(([h, len], i) => ({
              name: `b${i}`,
              start: new Date(base + h * 3_600_000).toISOString(),
              end: new Date(base + (h + len) * 3_600_000).toISOString(),
            })),
            latestDrainStartSecondsBeforeNotBefore: latestS,
          });
          const e = {
            eventType: "Freeze",
            firstSeenAt: base + seen,
            notBefore: base + seen + notice,
          };
          const bound = Math.max(e.firstSeenAt, e.notBefore - latestS * 1000);
          const d = decideWindow(p, e, e.firstSeenAt);
          const start =
            d.kind === "deferred"
              ? d.until
              : d.kind === "inWindow" || d.kind === "latestStart"
                ? d.from
                : NaN;
          expect(start).toBeLessThanOrEqual(bound);
          // …and at that moment the drain may start.
          expect(decideWindow(p, e, start).kind).not.toBe("deferred");
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("maintenance windows: the policy", () => {
  const parse = (mw: unknown, extra: object = {}) =>
    PolicySet.safeParse({ default: { maintenanceWindows: mw, ...extra } });
  const message = (r: ReturnType<typeof parse>) =>
    r.success ? "" : JSON.stringify(r.error.issues);

  it("refuses an unknown time zone, a day, equal start and end, a blackout ending first, naming the path", () => {
    expect(message(parse({ timeZone: "Europe/Berlln" }))).toContain("not an IANA time zone");
    expect(
      message(parse({ timeZone: "UTC", weekly: [{ days: ["Mo"], start: "22:00", end: "04:00" }] })),
    ).toContain('\\"Mo\\" is not a day');
    expect(
      message(
        parse({ timeZone: "UTC", weekly: [{ days: ["Mon"], start: "22:00", end: "22:00" }] }),
      ),
    ).toContain("00:00-24:00");
    expect(
      message(
        parse({
          timeZone: "UTC",
          blackouts: [{ name: "x", start: "2026-01-02T00:00:00Z", end: "2026-01-01T00:00:00Z" }],
        }),
      ),
    ).toContain("end must be after start");
    expect(
      message(
        parse({ timeZone: "UTC", weekly: [{ days: ["Mon"], start: "25:00", end: "04:00" }] }),
      ),
    ).toContain('"weekly",0,"start"');
  });

  it("defaults the exempt types and the latest start, and refuses a latest start inside the drain deadline", () => {
    const ok = PolicySet.parse({ default: { maintenanceWindows: { timeZone: "UTC" } } });
    expect(ok.default.maintenanceWindows).toMatchObject({
      exemptEventTypes: ["Preempt", "Terminate"],
      latestDrainStartSecondsBeforeNotBefore: 600,
    });
    expect(PolicySet.parse({}).default.maintenanceWindows).toBeUndefined();
    const bad = PolicySet.safeParse({
      default: { maintenanceWindows: { timeZone: "UTC" } },
      clusters: { web: { drainDeadlineSecondsBeforeNotBefore: 900 } },
    });
    expect(message(bad)).toContain(
      "must be greater than drainDeadlineSecondsBeforeNotBefore (900)",
    );
    expect(message(bad)).toContain('"clusters","web","maintenanceWindows"');
  });
});
