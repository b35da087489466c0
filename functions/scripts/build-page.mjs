#!/usr/bin/env node
// Builds the status page (functions/page) into a folder of static files the coordinator serves
// at /api/ui: index.html, one app.css bundled from the per-view styles (functions/page/styles/,
// imported by app.css) and one bundled app.js (zod and MSAL included; no CDN).
// `npm run build` writes functions/dist/page; the Function app package calls buildPage itself.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { workspaceSources } from "../../scripts/esbuild/workspace-sources.mjs";

const pageSrc = resolve(dirname(fileURLToPath(import.meta.url)), "..", "page");

/** @param {string} outDir */
export async function buildPage(outDir) {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(pageSrc, "main.ts")],
    outfile: join(outDir, "app.js"),
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    minify: true,
    legalComments: "none",
    plugins: [workspaceSources()],
    logLevel: "warning",
  });
  // One stylesheet, as the Content-Security-Policy (style-src 'self') and index.html expect.
  await build({
    entryPoints: [join(pageSrc, "app.css")],
    outfile: join(outDir, "app.css"),
    bundle: true,
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  copyFileSync(join(pageSrc, "index.html"), join(outDir, "index.html"));
  return outDir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildPage(resolve(pageSrc, "..", "dist", "page"));
}
