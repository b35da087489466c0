import { type Backoff, backoffMs } from "@quiesce/protocol";

/**
 * When a failed delivery is tried again: the shared backoff with "equal" jitter (half fixed, half
 * random, so many instances retrying one sink spread out but never retry at once), or dropped
 * once the next try would land past the message's deadline. Pure: the random draw is passed in.
 */

export interface BackoffOptions extends Omit<Backoff, "jitter"> {
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
  const wait = backoffMs(
    attempts,
    { baseMs: opts.baseMs, maxMs: opts.maxMs, jitter: "equal" },
    random,
  );
  const dueAt = now + Math.round(wait);
  if (dueAt > createdAt + opts.deadlineMs) return { kind: "drop" };
  return { kind: "retry", dueAt };
}
