import { backoffMs, delay } from "@quiesce/protocol";
import { describe, expect, it } from "vitest";

describe("backoffMs", () => {
  it("doubles from the base per failure and never exceeds the cap", () => {
    const b = { baseMs: 100, maxMs: 1000, jitter: "equal" as const };
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, b, 0.999999))).toEqual(
      [100, 200, 400, 800, 1000].map((c) => expect.closeTo(c, 0)),
    );
  });

  it("equal jitter waits at least half the ceiling, full jitter may retry at once", () => {
    expect(backoffMs(3, { baseMs: 100, maxMs: 1000, jitter: "equal" }, 0)).toBe(200);
    expect(backoffMs(3, { baseMs: 100, maxMs: 1000, jitter: "full" }, 0)).toBe(0);
  });

  it("stays finite for absurd failure counts", () => {
    expect(backoffMs(10_000, { baseMs: 5, maxMs: 300_000, jitter: "full" }, 0.5)).toBe(150_000);
  });
});

describe("delay", () => {
  it("resolves early, without rejecting, when its signal aborts", async () => {
    const stop = new AbortController();
    const started = Date.now();
    const waiting = delay(60_000, stop.signal);
    stop.abort();
    await waiting;
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
