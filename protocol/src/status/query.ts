import { z } from "zod";
import { ClusterName } from "../names";
import type { Result } from "../result";
import { PHASES } from "./lifecycle";

/**
 * The status API's query parameters and their bounds, shared by the coordinator (which parses
 * every request with them) and the clients (which build requests within them). Every answer is
 * bounded: a page holds at most `max` items, and fewer when the page's bytes reach the budget.
 */

export const STATUS_LIMITS = {
  /** GET /api/status: events per page. */
  events: { default: 100, max: 500 },
  /** GET /api/clusters/{cluster}: members per page. */
  members: { default: 500, max: 2000 },
  /** GET /api/clusters/{cluster}: active events shown (all of them: GET /api/status?cluster=). */
  clusterActiveEvents: 500,
  /** GET /api/clusters/{cluster}: the most recently ended events shown. */
  clusterRecentEnded: 50,
  /** GET /api/events/{eventId}: newest timeline entries kept. */
  timeline: 1000,
  /** Groups listed per cluster summary, largest first (every member still counts in memberCount). */
  groupsPerCluster: 100,
  /** Clusters listed by GET /api/status, by name. */
  clusters: 1000,
  /** A page (events or members) stops early once its JSON reaches this many bytes. */
  pageBytes: 2 * 1024 * 1024,
} as const;

export const EventState = z.enum(["active", "ended", "all"]);
export type EventState = z.infer<typeof EventState>;

const limit = (bounds: { default: number; max: number }) =>
  z
    .string()
    .regex(/^\d{1,6}$/, `must be an integer from 1 to ${bounds.max}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, `must be an integer from 1 to ${bounds.max}`)
        .max(bounds.max, `must be an integer from 1 to ${bounds.max}`),
    )
    .optional()
    .transform((v) => v ?? bounds.default);

const phases = z
  .string()
  .transform((s) => s.split(","))
  .pipe(
    z
      .array(z.enum(PHASES, { error: `must be a comma-separated list of: ${PHASES.join(", ")}` }))
      .min(1),
  )
  .optional();

/** An opaque position; its content is the coordinator's business (base64url, bounded). */
const Continuation = z
  .string()
  .min(1, "must not be empty")
  .max(2048, "too long")
  .regex(/^[A-Za-z0-9_-]+$/, "is not a continuation token from this API")
  .optional();

/** GET /api/status?cluster=NAME&phase=P1,P2&state=active|ended|all&limit=N&continuation=TOKEN */
export const StatusQuery = z.object({
  cluster: ClusterName.optional(),
  phase: phases,
  state: EventState.optional().transform((v) => v ?? "active"),
  limit: limit(STATUS_LIMITS.events),
  continuation: Continuation,
});
export type StatusQuery = z.output<typeof StatusQuery>;

/** GET /api/clusters/{cluster}?limit=N&continuation=TOKEN */
export const ClusterQuery = z.object({
  limit: limit(STATUS_LIMITS.members),
  continuation: Continuation,
});
export type ClusterQuery = z.output<typeof ClusterQuery>;

/** Parses query parameters (first value of each) with `schema`; an error names the parameter. */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  params: { get(name: string): string | null },
  names: readonly string[],
): Result<z.output<S>> {
  const raw: Record<string, string> = {};
  for (const n of names) {
    const v = params.get(n);
    if (v !== null) raw[n] = v;
  }
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const name = issue?.path[0] ?? "query";
  return { ok: false, error: `invalid ${String(name)}: ${issue?.message ?? "bad value"}` };
}

export const STATUS_QUERY_NAMES = ["cluster", "phase", "state", "limit", "continuation"] as const;
export const CLUSTER_QUERY_NAMES = ["limit", "continuation"] as const;
