/**
 * When a failed delivery is tried again: exponential backoff with jitter (half fixed, half
 * random, so many instances retrying one sink spread out), or dropped once the next try would
 * land past the message's deadline. Pure: the random draw is passed in.
 */

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  deadlineMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  baseMs: 5_000,
  maxMs: 300_000,
  deadlineMs: 3_600_000,
};

export type RetryPlan = { kind: "retry"; dueAt: number } | { kind: "drop" };

/** `attempts` counts the tries made so far, this failed one included (>= 1). */
export function planRetry(
  attempts: number,
  createdAt: number,
  now: number,
  opts: BackoffOptions,
  random: number,
): RetryPlan {
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(30, attempts - 1));
  const dueAt = now + Math.round(ceiling / 2 + (ceiling / 2) * random);
  if (dueAt > createdAt + opts.deadlineMs) return { kind: "drop" };
  return { kind: "retry", dueAt };
}
