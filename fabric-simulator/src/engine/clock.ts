import type { Clock } from "@quiesce/protocol";

/**
 * The simulated clock. Every time in the fabric (NotBefore, Started, removal, fault expiry) is in
 * simulated milliseconds since the epoch, so a 15-minute notice can pass in seconds of real time.
 * Both clocks can be moved forward on demand: tests step a manual clock deterministically, and a
 * user of the standalone simulator can skip ahead without waiting.
 */
export interface SimClock extends Clock {
  /** Simulated now, epoch milliseconds. */
  now(): number;
  /** Move simulated time forward by `ms` (never backwards: NotBefore values must stay ordered). */
  advance(ms: number): void;
  /** Simulated seconds per real second; `undefined` for a manual clock (time moves only on demand). */
  readonly timeScale: number | undefined;
}

/** `simNow = start + (real elapsed) * timeScale + skipped`. */
export class ScaledClock implements SimClock {
  private readonly realStart: number;
  private skipped = 0;

  constructor(
    readonly timeScale: number,
    private readonly simStart: number = Date.now(),
    private readonly realNow: () => number = Date.now,
  ) {
    if (!(timeScale > 0) || !Number.isFinite(timeScale)) {
      throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
    }
    this.realStart = realNow();
  }

  now(): number {
    return Math.floor(
      this.simStart + (this.realNow() - this.realStart) * this.timeScale + this.skipped,
    );
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot move the clock backwards (${ms} ms)`);
    this.skipped += ms;
  }
}

/** Time moves only when a test says so: every transition happens at a known instant. */
export class ManualClock implements SimClock {
  readonly timeScale = undefined;

  constructor(private current: number = Date.UTC(2026, 0, 5, 9, 0, 0)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot move the clock backwards (${ms} ms)`);
    this.current += ms;
  }

  advanceSeconds(seconds: number): void {
    this.advance(seconds * 1000);
  }
}
