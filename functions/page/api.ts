import { ClusterPage, EventDetail, StatusPage } from "@quiesce/protocol/status";
import { z } from "zod";

// The status API's own schemas (shared with the coordinator, the CLI and the demo), from source
// so the bundle takes only these; they drop fields a newer coordinator adds.
export {
  ClusterPage,
  EventDetail,
  EventView,
  MemberView,
  StatusPage,
  type TimelineEntry,
} from "@quiesce/protocol/status";

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
    return this.get("/api/status?state=active&limit=200", StatusPage);
  }
  cluster(name: string) {
    return this.get(`/api/clusters/${encodeURIComponent(name)}?limit=500`, ClusterPage);
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
