/** Wall time for timestamps and NotBefore arithmetic; tests and the simulator may shift it. */
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

/** "Equal" jitter: a random wait in [base/2, base], so many relays never retry in step. */
export const jitter = (ms: number): number => ms / 2 + Math.random() * (ms / 2);
