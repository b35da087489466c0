import { createHash } from "node:crypto";
import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

/** Fields that move with the clock alone; the page derives them from `now` and the timestamps. */
const CLOCK_FIELDS = new Set(["now", "lastSeenSecondsAgo"]);

/**
 * A weak ETag over a JSON answer without its clock-only fields: it changes when the state does,
 * not every second. The status page polls with If-None-Match and gets a bodiless 304 while
 * nothing happened.
 */
export function weakEtag(body: unknown): string {
  const text = JSON.stringify(body, (k, v: unknown) => (CLOCK_FIELDS.has(k) ? undefined : v));
  return `W/"${createHash("sha256").update(text).digest("base64url").slice(0, 22)}"`;
}

const strip = (tag: string) => tag.trim().replace(/^W\//, "");

export function conditional(handler: Handler): Handler {
  return async (request, context) => {
    const response = await handler(request, context);
    if ((response.status ?? 200) !== 200 || response.jsonBody === undefined) return response;
    const etag = weakEtag(response.jsonBody);
    const headers = { ...(response.headers as Record<string, string>), etag };
    const ifNoneMatch = request.headers.get("if-none-match");
    if (ifNoneMatch?.split(",").some((t) => strip(t) === strip(etag)))
      return { status: 304, headers };
    return { ...response, headers };
  };
}
