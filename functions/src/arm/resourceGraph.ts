import type { Result } from "@quiesce/protocol";
import {
  type PublishedObservation,
  parseResourceGraphPage,
  RESOURCE_GRAPH_API_VERSION,
  resourceGraphRequest,
} from "@quiesce/protocol/published";
import { z } from "zod";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";

/**
 * The Resource Graph backstop's read: every scheduled event of some subscriptions, from the
 * `maintenanceresources` table (protocol `SCHEDULED_EVENTS_QUERY`), through
 * `POST /providers/Microsoft.ResourceGraph/resources?api-version=2022-10-01`, page after page.
 *
 * Bounded so one run can never run away: at most `maxPages` requests in all (each page is one
 * query of the caller's quota: "each paginated query you send takes one query quota", azure-docs
 * `resource-graph/concepts/guidance-for-throttled-requests.md`), and it stops early once the quota
 * says none is left. A throttled page (429) is reported, not waited out: the client's own retries
 * are all it gets, and the next run starts afresh.
 */

export const RESOURCE_GRAPH_PATH = "/providers/Microsoft.ResourceGraph/resources";

/** "Batch requests ... to stay under the 1000 subscription limit" (resource-graph troubleshoot/general.md). */
export const MAX_SUBSCRIPTIONS_PER_QUERY = 1000;
/** "The group size is recommended to be less than 300" (guidance-for-throttled-requests.md). */
const DEFAULT_BATCH = 300;
const DEFAULT_MAX_PAGES = 20;
/** The spec's maximum for `$top` (2022-10-01 `QueryRequestOptions`). */
const MAX_TOP = 1000;

export interface ScheduledEventsQueryOptions {
  /** Requests in all, across batches (default 20). */
  maxPages?: number;
  /** Subscriptions per request (default 300; at most 1000). */
  batchSize?: number;
  /** Rows per page, 1..1000 (default 1000). */
  top?: number;
}

export interface ScheduledEventsQuery {
  observations: PublishedObservation[];
  /** Rows of other types or shapes. */
  ignored: number;
  /** Scheduled-event rows whose properties did not parse: the first problem of each. */
  problems: string[];
  /** Requests answered. */
  pages: number;
  /** Rows were left unread (page bound, quota spent, or `resultTruncated`): the next run reads them. */
  truncated: boolean;
  /** The last `x-ms-user-quota-remaining` seen; null when no answer said. */
  quotaRemaining: number | null;
  /** The last `x-ms-user-quota-resets-after` seen, in ms; null when no answer said. */
  quotaResetsAfterMs: number | null;
}

const Subscription = z.string().regex(/^[0-9A-Za-z-]{1,64}$/, "a subscription id");
const Truncated = z.looseObject({ resultTruncated: z.literal("true") });

/**
 * The two throttling headers, which the ARM client passes on (an `ArmResponse`'s or an
 * `ArmError`'s `headers`, lower-case names); null when Resource Graph's answer did not say.
 */
const WithHeaders = z.looseObject({ headers: z.record(z.string(), z.string()) });

/** `hh:mm:ss`, optionally with a fraction of a second, as Resource Graph documents it; ms. */
export function parseQuotaResetsAfter(text: string): number | null {
  const m = /^(\d{1,2}):([0-5]\d):([0-5]\d(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return null;
  return Math.round(((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000);
}

export function quotaOf(answer: unknown): {
  remaining: number | null;
  resetsAfterMs: number | null;
} {
  const h = WithHeaders.safeParse(answer);
  if (!h.success) return { remaining: null, resetsAfterMs: null };
  const remaining = h.data.headers["x-ms-user-quota-remaining"]?.trim();
  const resets = h.data.headers["x-ms-user-quota-resets-after"];
  return {
    remaining: remaining !== undefined && /^\d{1,9}$/.test(remaining) ? Number(remaining) : null,
    resetsAfterMs: resets === undefined ? null : parseQuotaResetsAfter(resets),
  };
}

/** Subscriptions once each (ids compare without regard to case), in the order given. */
function distinct(subscriptions: readonly string[]): Result<string[], ArmError> {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const s of subscriptions) {
    const parsed = Subscription.safeParse(s);
    if (!parsed.success)
      return { ok: false, error: localError("InvalidRequest", `${s} is not a subscription id`) };
    if (seen.has(s.toLowerCase())) continue;
    seen.add(s.toLowerCase());
    out.push(s);
  }
  return { ok: true, value: out };
}

const clamp = (v: number | undefined, fallback: number, max: number) =>
  Math.min(max, Math.max(1, Math.floor(v ?? fallback)));

export async function queryScheduledEvents(
  client: ArmClient,
  subscriptions: readonly string[],
  opts: ScheduledEventsQueryOptions = {},
): Promise<Result<ScheduledEventsQuery, ArmError>> {
  const subs = distinct(subscriptions);
  if (!subs.ok) return subs;
  const maxPages = clamp(opts.maxPages, DEFAULT_MAX_PAGES, 1000);
  const batchSize = clamp(opts.batchSize, DEFAULT_BATCH, MAX_SUBSCRIPTIONS_PER_QUERY);
  const top = clamp(opts.top, MAX_TOP, MAX_TOP);
  const out: ScheduledEventsQuery = {
    observations: [],
    ignored: 0,
    problems: [],
    pages: 0,
    truncated: false,
    quotaRemaining: null,
    quotaResetsAfterMs: null,
  };
  const heard = (answer: unknown) => {
    const q = quotaOf(answer);
    if (q.remaining !== null) out.quotaRemaining = q.remaining;
    if (q.resetsAfterMs !== null) out.quotaResetsAfterMs = q.resetsAfterMs;
  };

  for (let i = 0; i < subs.value.length; i += batchSize) {
    const batch = subs.value.slice(i, i + batchSize);
    let skipToken: string | undefined;
    do {
      // Another request would pass the bound, or be throttled: leave the rest to the next run.
      if (out.pages >= maxPages || out.quotaRemaining === 0) {
        out.truncated = true;
        return { ok: true, value: out };
      }
      const got = await client.request({
        method: "POST",
        path: RESOURCE_GRAPH_PATH,
        apiVersion: RESOURCE_GRAPH_API_VERSION,
        body: resourceGraphRequest(batch, { top, ...(skipToken ? { skipToken } : {}) }),
        schema: z.unknown(),
        operation: "resourceGraphScheduledEvents",
      });
      heard(got.ok ? got.value : got.error);
      if (!got.ok) {
        // A throttled query's wait is the quota's reset when the answer named no Retry-After.
        const resets = out.quotaResetsAfterMs;
        const error =
          got.error.status === 429 && got.error.retryAfterMs === undefined && resets !== null
            ? { ...got.error, retryAfterMs: resets }
            : got.error;
        return { ok: false, error };
      }
      out.pages++;
      const page = parseResourceGraphPage(got.value.body);
      if (!page.ok) {
        const message = `resourceGraphScheduledEvents: ${page.error}`;
        const { status, attempts } = got.value;
        return { ok: false, error: { status, code: "InvalidResponse", message, attempts } };
      }
      out.observations.push(...page.value.observations);
      out.ignored += page.value.ignored;
      out.problems.push(...page.value.problems);
      if (Truncated.safeParse(got.value.body).success) out.truncated = true;
      skipToken = page.value.skipToken ?? undefined;
    } while (skipToken !== undefined);
  }
  return { ok: true, value: out };
}
