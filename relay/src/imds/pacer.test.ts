import { describe, expect, it } from "vitest";
import { Pacer } from "./pacer";

/** Real timers, a short window: the pacer's own clock is performance.now(). */
describe("IMDS pacer", () => {
  it("lets a request right after another through at once: two in a second are far inside IMDS's 5", async () => {
    const pacer = new Pacer(5, 1000);
    await pacer.slot();
    const t0 = performance.now();
    await pacer.slot();
    expect(performance.now() - t0).toBeLessThan(20);
  });

  it("never starts more than its limit in any window: a burst waits for the oldest to leave it", async () => {
    const windowMs = 200;
    const pacer = new Pacer(5, windowMs);
    const starts: number[] = [];
    for (let i = 0; i < 12; i++) {
      await pacer.slot();
      starts.push(performance.now());
    }
    for (let i = 5; i < starts.length; i++)
      // Timers may fire a hair early on a loaded machine: 1 ms of slack.
      expect((starts[i] as number) - (starts[i - 5] as number)).toBeGreaterThanOrEqual(
        windowMs - 1,
      );
    // ...and no slower than needed: 12 requests at 5 per window take about two windows.
    expect((starts[11] as number) - (starts[0] as number)).toBeLessThan(3 * windowMs);
  });

  it("returns at once when its signal is aborted while waiting", async () => {
    const pacer = new Pacer(1, 60_000);
    await pacer.slot();
    const stop = new AbortController();
    const waiting = pacer.slot(stop.signal);
    stop.abort();
    const t0 = performance.now();
    await waiting;
    expect(performance.now() - t0).toBeLessThan(50);
  });
});
