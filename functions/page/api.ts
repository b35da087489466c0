import { parseJsonWith } from "@quiesce/protocol";
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

/** How the coordinator words a refusal. */
const ProblemBody = z.object({ error: z.string() });

/** An answer through its schema; one that does not parse throws, saying why. */
function answer<T>(schema: z.ZodType<T>, text: string): T {
  const parsed = parseJsonWith(schema, text);
  if (!parsed.ok) throw new Error(`unreadable answer: ${parsed.error}`);
  return parsed.value;
}

export type OperatorVerb = "hold" | "release" | "force-approve";

/** A small client: bearer credential on every call, conditional GETs remembered per URL. */
export class StatusApi {
  private readonly cache = new Map<string, { etag: string; text: string }>();

  constructor(private readonly credential: () => Promise<string>) {}

  private async call(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${await this.credential()}`);
    return fetch(path, { ...init, headers, cache: "no-store" });
  }

  private static async fail(r: Response): Promise<never> {
    const problem = parseJsonWith(ProblemBody, await r.text().catch(() => ""));
    const why = problem.ok ? problem.value.error : r.statusText;
    throw new ApiError(r.status, `${r.status}: ${why}`);
  }

  /** GET with If-None-Match; a 304 returns the body remembered from the last 200. */
  private async get<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    const hit = this.cache.get(path);
    const r = await this.call(path, hit ? { headers: { "if-none-match": hit.etag } } : {});
    if (r.status === 304 && hit) return answer(schema, hit.text);
    if (!r.ok) return StatusApi.fail(r);
    const text = await r.text();
    const etag = r.headers.get("etag");
    if (etag) this.cache.set(path, { etag, text });
    return answer(schema, text);
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
    body: { reason: string; ttlMinutes?: number; replace?: boolean },
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
    return answer(EventDetail, await r.text());
  }
}

export async function loadPageConfig(): Promise<PageConfig> {
  const r = await fetch("/api/ui/config.json", { cache: "no-store" });
  if (!r.ok) throw new ApiError(r.status, `page configuration: ${r.status}`);
  return answer(PageConfig, await r.text());
}
