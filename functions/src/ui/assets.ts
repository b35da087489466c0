import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The status page's static files, built by functions/scripts/build-page.mjs into dist/page (and
 * into the Function app package next to the bundled app.js). Read once, served from memory.
 */

export const PAGE_FILES = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
} as const;
export type PageFile = keyof typeof PAGE_FILES;

export interface PageAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

// From src/ui or dist/ui (tsc) the files are in ../../dist/page; from the package bundle, ./page.
const candidates = () => [
  join(__dirname, "page"),
  join(__dirname, "..", "page"),
  join(__dirname, "..", "..", "dist", "page"),
];

export function pageDir(): string | undefined {
  return candidates().find((d) => existsSync(join(d, "index.html")));
}

const cache = new Map<PageFile, PageAsset>();

/** The asset, or undefined when the page was not built (the handler says how to build it). */
export function pageAsset(name: PageFile): PageAsset | undefined {
  const hit = cache.get(name);
  if (hit) return hit;
  const dir = pageDir();
  if (!dir) return undefined;
  const body = readFileSync(join(dir, name));
  const asset = {
    body,
    contentType: PAGE_FILES[name],
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
  };
  cache.set(name, asset);
  return asset;
}
