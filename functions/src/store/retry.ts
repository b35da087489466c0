import { backoffMs, delay } from "@quiesce/protocol";
import { ConcurrencyConflict } from "./tables";

/** Every attempt lost its race: the caller answers 503 with Retry-After. */
export class RetriesExhausted extends Error {
  override name = "RetriesExhausted";
  constructor(readonly attempts: number) {
    super(`state changed concurrently ${attempts} times in a row; try again shortly`);
  }
}

export interface RetryOptions {
  maxAttempts?: number;
  /** First backoff; doubles per attempt with full jitter, capped at 500 ms. */
  baseDelayMs?: number;
}

/**
 * Optimistic concurrency: run read → decide → write; on an ETag conflict, run it all again from
 * a fresh read. Jitter spreads out many instances racing for the same event row.
 */
export async function withConflictRetry<T>(
  attempt: (n: number) => Promise<T>,
  opts: RetryOptions = {},
): Promise<T> {
  const max = opts.maxAttempts ?? 8;
  const base = opts.baseDelayMs ?? 10;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (!(e instanceof ConcurrencyConflict)) throw e;
      if (n >= max) throw new RetriesExhausted(n);
      await delay(backoffMs(n, { baseMs: base, maxMs: 500, jitter: "full" }));
    }
  }
}
