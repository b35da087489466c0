import { delay } from "@quiesce/protocol";
import { waitFor } from "@quiesce/testkit/wait";
import { describe, expect, it } from "vitest";
import { readTimerSchedule, type TimerSchedule } from "../timerSchedule";
import { startSweepTimer } from "./sweepTimer";

const schedule = (text: string): TimerSchedule => {
  const read = readTimerSchedule(text);
  if (!read.ok) throw new Error(read.problem);
  return read.value;
};

describe("the local host's sweep timer", () => {
  it("runs an NCRONTAB schedule at its occurrences, never before them (not every 10 s for anything but */N)", async () => {
    const started = Date.now();
    const at: number[] = [];
    const timer = startSweepTimer({
      schedule: schedule("* * * * * *"),
      sweep: async () => void at.push(Date.now()),
      never: () => {},
    });
    try {
      await waitFor("two sweeps", () => at.length >= 2, 5_000);
    } finally {
      await timer.stop();
    }
    // Each on or after a whole second, and each in a second of its own.
    expect(at[0]).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 + 1000);
    expect(new Set(at.map((t) => Math.floor(t / 1000))).size).toBe(at.length);
  });

  it("never runs a sweep on top of one still under way, and stop() waits for it", async () => {
    let running = 0;
    let most = 0;
    let done = 0;
    const timer = startSweepTimer({
      schedule: { kind: "timeSpan", intervalMs: 20 },
      sweep: async () => {
        running++;
        most = Math.max(most, running);
        await delay(150);
        running--;
        done++;
      },
      never: () => {},
    });
    await waitFor("two sweeps done", () => done >= 2, 5_000);
    await timer.stop();
    expect(most).toBe(1);
    expect(running).toBe(0);
  });

  it("says once that a schedule never fires (30 February) and sweeps nothing", async () => {
    let told = 0;
    let swept = 0;
    const timer = startSweepTimer({
      schedule: schedule("0 0 0 30 2 *"),
      sweep: async () => void swept++,
      never: () => void told++,
    });
    await timer.stop();
    expect({ told, swept }).toEqual({ told: 1, swept: 0 });
  });
});
