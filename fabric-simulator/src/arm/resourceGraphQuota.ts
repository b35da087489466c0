import { z } from "zod";

/**
 * Resource Graph's per-user query quota. Azure documents it as "a quota number for each user based
 * on a time window. For example, a user can send at most 15 queries within every 5-second window",
 * with `x-ms-user-quota-remaining` (int) and `x-ms-user-quota-resets-after` (hh:mm:ss) "in every
 * query response", and "each paginated query you send takes one query quota" (azure-docs
 * `governance/resource-graph/concepts/guidance-for-throttled-requests.md`, 01/04/2024).
 *
 * The window is a fixed one that opens at the caller's first query and gives the whole quota back
 * when it ends, which is what the documented example shows (remaining 10, resets after 00:00:03;
 * three seconds later 15 and 00:00:05); how Azure really refills is not documented. Windows run on
 * real time, as Azure's do, whatever the simulated clock does.
 */

export const ResourceGraphQuota = z.strictObject({
  /** Queries per window and caller. */
  limit: z.number().int().min(1).max(10_000).default(15),
  /** The window, in real milliseconds (at most an hour, so `hh` stays two digits). */
  windowMs: z.number().int().min(1).max(3_600_000).default(5_000),
});
export type ResourceGraphQuotaInput = z.input<typeof ResourceGraphQuota>;
export type ResourceGraphQuotaConfig = z.output<typeof ResourceGraphQuota>;

interface QuotaWindow {
  readonly startMs: number;
  readonly used: number;
}

export interface ResourceGraphQuotaState {
  readonly config: ResourceGraphQuotaConfig;
  /** Per caller (principal id, lower case): the window it is in. */
  readonly windows: Readonly<Record<string, QuotaWindow>>;
}

export interface QuotaDecision {
  /** False: the query is throttled (429) and does not count. */
  readonly allowed: boolean;
  readonly remaining: number;
  readonly resetsAfterMs: number;
}

export const initialQuota = (
  config: ResourceGraphQuotaConfig = ResourceGraphQuota.parse({}),
): ResourceGraphQuotaState => ({ config, windows: {} });

/** One query by `principalId` at `nowMs`: counted when the window has room, refused otherwise. */
export function takeQuery(
  state: ResourceGraphQuotaState,
  principalId: string,
  nowMs: number,
): { state: ResourceGraphQuotaState; decision: QuotaDecision } {
  const { limit, windowMs } = state.config;
  const key = principalId.toLowerCase();
  const held = state.windows[key];
  // A window that ended (or a wall clock that went back) starts afresh.
  const current =
    held && nowMs >= held.startMs && nowMs < held.startMs + windowMs
      ? held
      : { startMs: nowMs, used: 0 };
  const resetsAfterMs = current.startMs + windowMs - nowMs;
  const allowed = current.used < limit;
  const next = allowed ? { ...current, used: current.used + 1 } : current;
  return {
    state: { ...state, windows: { ...state.windows, [key]: next } },
    decision: { allowed, remaining: limit - next.used, resetsAfterMs },
  };
}

/** `hh:mm:ss`, rounded up to the second: a caller that waits this long finds its quota back. */
export function hhmmss(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

/** The two throttling headers Resource Graph puts on every query answer. */
export function quotaHeaders(d: QuotaDecision): Record<string, string> {
  return {
    "x-ms-user-quota-remaining": String(d.remaining),
    "x-ms-user-quota-resets-after": hhmmss(d.resetsAfterMs),
  };
}
