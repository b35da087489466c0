/**
 * Time as every part of Quiesce uses it: a clock that tests and the simulator may shift, a delay
 * that an AbortSignal ends early, and the one backoff with jitter (relays, the coordinator's
 * conflict retries and notification retries all spread out the same way, so many peers failing
 * together never retry in step).
 */

/** Wall time for timestamps and NotBefore arithmetic. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** setTimeout as a promise that an AbortSignal ends early (resolves, never rejects). */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

export interface Backoff {
  /** The wait before the second try; it doubles per failed try. */
  baseMs: number;
  /** No wait is longer than this. */
  maxMs: number;
  /**
   * "equal": a random wait in [ceiling/2, ceiling] (never retries at once: relays, deliveries);
   * "full": in [0, ceiling] (lowest mean wait: racing instances that only need to spread out).
   */
  jitter: "equal" | "full";
}

/**
 * The wait after `failures` failed tries (>= 1): exponential from `baseMs`, capped at `maxMs`,
 * jittered. Pure: the random draw in [0, 1) is passed in (default Math.random).
 */
export function backoffMs(failures: number, b: Backoff, random: number = Math.random()): number {
  const ceiling = Math.min(b.maxMs, b.baseMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  const floor = b.jitter === "equal" ? ceiling / 2 : 0;
  return floor + (ceiling - floor) * random;
}
