import { startLagMonitor } from "@quiesce/testkit/lag";
import { describe, expect, it } from "vitest";
import { Pacer } from "../../src/imds/pacer";

/**
 * "At once" means without waiting on any timer: the slot resolves before a macrotask queued at the
 * same moment runs. That holds however loaded the machine is, unlike a bound in milliseconds.
 */
async function resolvesAtOnce(p: Promise<void>): Promise<boolean> {
  const timer = new Promise<"timer">((r) => setImmediate(() => r("timer")));
  return (await Promise.race([p.then(() => "slot" as const), timer])) === "slot";
}

/** Real timers, a short window: the pacer's own clock is performance.now(). */
describe("IMDS pacer", () => {
  it("lets a request right after another through at once: two in a second are far inside IMDS's 5", async () => {
    const pacer = new Pacer(5, 1000);
    await pacer.slot();
    expect(await resolvesAtOnce(pacer.slot())).toBe(true);
  });

  it("never starts more than its limit in any window: a burst waits for the oldest to leave it", async () => {
    const windowMs = 200;
    const pacer = new Pacer(5, windowMs);
    const lag = startLagMonitor(5);
    const from = Date.now();
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
    // ...and no slower than needed: 12 requests at 5 per window take about two windows, plus
    // however long this process was kept from running meanwhile (a loaded machine).
    const delayed = lag.between(from, Date.now());
    lag.stop();
    expect((starts[11] as number) - (starts[0] as number)).toBeLessThan(3 * windowMs + delayed);
  });

  it("returns at once when its signal is aborted while waiting", async () => {
    const pacer = new Pacer(1, 60_000);
    await pacer.slot();
    const stop = new AbortController();
    const waiting = pacer.slot(stop.signal);
    stop.abort();
    expect(await resolvesAtOnce(waiting)).toBe(true);
  });
});
