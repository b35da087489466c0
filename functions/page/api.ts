import { z } from "zod";

/**
 * The status API as the page reads it. Objects are parsed leniently (unknown fields dropped,
 * fields the page can live without optional), so the page keeps working while the API grows:
 * e.g. /api/status with or without top-level `events`, cluster detail with `endedEvents` or
 * `recentEndedEvents`, with or without `groups`.
 */

// zod would compile parsers with `new Function`; the page's CSP forbids eval (and the refused
// probe is logged as a console error), so build every schema below without it.
z.config({ jitless: true });

const iso = z.string().nullable();

export const Blocker = z.object({ vm: z.string(), reason: z.string(), detail: z.string() });
const Override = z.object({ by: z.string(), reason: z.string(), at: iso, expiresAt: iso });

export const EventView = z.object({
  eventId: z.string(),
  cluster: z.string(),
  eventType: z.string(),
  eventSource: z.string().nullable().optional(),
  durationInSeconds: z.number().nullable().optional(),
  description: z.string().nullable().optional(),
  status: z.string().nullable().optional(),
  phase: z.string(),
  phaseSince: iso.optional(),
  notBefore: iso,
  resources: z.array(z.string()),
  firstSeenAt: iso,
  firstSeenBy: z.string().nullable().optional(),
  startedAt: iso,
  endedAt: iso,
  approval: z.object({
    rule: z.string().nullable(),
    approvedAt: iso,
    approvedBy: z.string().nullable(),
    lease: z.object({ holder: z.string(), expiresAt: iso, attempt: z.number() }).nullable(),
  }),
  hold: Override.nullable(),
  forceApprove: Override.nullable(),
  waitingFor: z.string().nullable(),
  blockers: z.array(Blocker).default([]),
  drained: z.array(z.string()).default([]),
});
export type EventView = z.infer<typeof EventView>;

export const MemberView = z.object({
  vm: z.string(),
  live: z.boolean(),
  lastSeenAt: iso,
  events: z.array(z.string()).default([]),
  relayVersion: z.string().nullable().optional(),
  dryRun: z.boolean().optional(),
  vmScaleSetName: z.string().optional(),
  placementGroupId: z.string().optional(),
  availabilitySetName: z.string().optional(),
  availabilitySet: z.string().optional(),
  zone: z.string().optional(),
  platformUpdateDomain: z.union([z.string(), z.number()]).optional(),
  platformFaultDomain: z.union([z.string(), z.number()]).optional(),
});
export type MemberView = z.infer<typeof MemberView>;

export const GroupKind = z.enum([
  "placementGroup",
  "scaleSet",
  "zone",
  "availabilitySet",
  "ungrouped",
]);
export const GroupSummary = z.object({
  kind: z.string(),
  name: z.string(),
  memberCount: z.number(),
  liveMembers: z.number(),
});
export type GroupSummary = z.infer<typeof GroupSummary>;

export const ClusterSummary = z.object({
  cluster: z.string(),
  memberCount: z.number().optional(),
  liveMembers: z.number(),
  activeEventCount: z.number().optional(),
  groups: z.array(GroupSummary).optional(),
  // Before the status API was bounded, the summary carried these.
  members: z.array(MemberView).optional(),
  activeEvents: z.array(EventView).optional(),
});
export type ClusterSummary = z.infer<typeof ClusterSummary>;

export const StatusPage = z.object({
  now: z.string(),
  clusters: z.array(ClusterSummary),
  events: z.array(EventView).optional(),
  continuation: z.string().nullable().optional(),
});
export type StatusPage = z.infer<typeof StatusPage>;

export const ClusterDetail = ClusterSummary.extend({
  now: z.string(),
  members: z.array(MemberView).default([]),
  activeEvents: z.array(EventView).default([]),
  recentEndedEvents: z.array(EventView).optional(),
  endedEvents: z.array(EventView).optional(),
  continuation: z.string().nullable().optional(),
});
export type ClusterDetail = z.infer<typeof ClusterDetail>;

export const HistoryEntry = z.object({
  at: z.string(),
  kind: z.string(),
  from: z.string().nullish(),
  to: z.string().nullish(),
  action: z.string().nullish(),
  reason: z.string().nullish(),
  vm: z.string().nullish(),
  by: z.string().nullish(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

const HookRun = z.object({ status: z.string() }).loose().nullable();
export const EventDetail = EventView.extend({
  now: z.string(),
  readiness: z
    .array(
      z.object({
        vm: z.string(),
        inDocument: z.boolean().optional(),
        affected: z.boolean().optional(),
        drain: HookRun.optional(),
        recover: HookRun.optional(),
      }),
    )
    .default([]),
  timeline: z.array(HistoryEntry).default([]),
});
export type EventDetail = z.infer<typeof EventDetail>;

export const Me = z.object({ principal: z.string(), roles: z.array(z.string()) });
export type Me = z.infer<typeof Me>;

export const PageConfig = z.discriminatedUnion("auth", [
  z.object({ auth: z.literal("sharedKey") }),
  z.object({
    auth: z.literal("entra"),
    clientId: z.string(),
    authority: z.string(),
    scopes: z.array(z.string()),
  }),
]);
export type PageConfig = z.infer<typeof PageConfig>;

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type OperatorVerb = "hold" | "release" | "force-approve";

/** A small client: bearer credential on every call, conditional GETs remembered per URL. */
export class StatusApi {
  private readonly cache = new Map<string, { etag: string; body: unknown }>();

  constructor(private readonly credential: () => Promise<string>) {}

  private async call(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${await this.credential()}`);
    return fetch(path, { ...init, headers, cache: "no-store" });
  }

  private static async fail(r: Response): Promise<never> {
    const body = (await r.json().catch(() => null)) as { error?: unknown } | null;
    const why = typeof body?.error === "string" ? body.error : r.statusText;
    throw new ApiError(r.status, `${r.status}: ${why}`);
  }

  /** GET with If-None-Match; a 304 returns the body remembered from the last 200. */
  private async get<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    const hit = this.cache.get(path);
    const r = await this.call(path, hit ? { headers: { "if-none-match": hit.etag } } : {});
    if (r.status === 304 && hit) return schema.parse(hit.body);
    if (!r.ok) return StatusApi.fail(r);
    const body = (await r.json()) as unknown;
    const etag = r.headers.get("etag");
    if (etag) this.cache.set(path, { etag, body });
    return schema.parse(body);
  }

  me() {
    return this.get("/api/me", Me);
  }
  status() {
    return this.get("/api/status?state=active", StatusPage);
  }
  cluster(name: string) {
    return this.get(`/api/clusters/${encodeURIComponent(name)}`, ClusterDetail);
  }
  event(eventId: string, cluster: string) {
    return this.get(
      `/api/events/${encodeURIComponent(eventId)}?cluster=${encodeURIComponent(cluster)}`,
      EventDetail,
    );
  }

  async act(
    verb: OperatorVerb,
    eventId: string,
    cluster: string,
    body: { reason: string; ttlMinutes?: number },
  ): Promise<EventDetail> {
    const r = await this.call(
      `/api/events/${encodeURIComponent(eventId)}/${verb}?cluster=${encodeURIComponent(cluster)}`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      },
    );
    if (!r.ok) return StatusApi.fail(r);
    return EventDetail.parse(await r.json());
  }
}

export async function loadPageConfig(): Promise<PageConfig> {
  const r = await fetch("/api/ui/config.json", { cache: "no-store" });
  if (!r.ok) throw new ApiError(r.status, `page configuration: ${r.status}`);
  return PageConfig.parse(await r.json());
}
