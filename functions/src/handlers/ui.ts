import type { HttpRequest, HttpResponseInit } from "@azure/functions";
import { PAGE_FILES, type PageFile, pageAsset } from "../ui/assets";
import { pageConfig } from "../ui/pageConfig";
import { type Handler, withAuth } from "./compose";
import type { HandlerDeps } from "./deps";
import { json, problem } from "./http";

/**
 * Nothing the page may fetch lives elsewhere: scripts, styles and API calls stay on this origin;
 * only Entra sign-in (token endpoint, silent-renew frame) reaches login.microsoftonline.com.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self' https://login.microsoftonline.com",
  "frame-src https://login.microsoftonline.com",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const matches = (ifNoneMatch: string | null, etag: string) =>
  ifNoneMatch?.split(",").some((t) => t.trim().replace(/^W\//, "") === etag) ?? false;

/** GET /api/ui and /api/ui/{asset}: the status page (public: it holds no data and no secret). */
export function pageHandler(deps: HandlerDeps) {
  return async (request: HttpRequest): Promise<HttpResponseInit> => {
    const name = request.params.asset ?? "index.html";
    if (name === "config.json") return json(200, pageConfig(deps.options.auth));
    if (!Object.hasOwn(PAGE_FILES, name)) return problem(404, `no such page asset: ${name}`);
    const asset = pageAsset(name as PageFile);
    if (!asset)
      return problem(
        503,
        "the status page is not built: run `npm run build` (functions/dist/page)",
      );
    const headers = {
      "content-type": asset.contentType,
      etag: asset.etag,
      // Revalidate every time: the ETag makes that a 304 without a body.
      "cache-control": "no-cache",
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    };
    if (matches(request.headers.get("if-none-match"), asset.etag)) return { status: 304, headers };
    return { status: 200, body: new Uint8Array(asset.body), headers };
  };
}

/** GET /api/me: who the caller is and what they may do, so the page shows only what works. */
export function meHandler(deps: HandlerDeps): Handler {
  return withAuth(deps, "reader", async (_request, _context, principal) => {
    return json(200, { principal: principal.display, roles: principal.roles });
  });
}
