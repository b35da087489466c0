import type { Plugin } from "esbuild";

/** esbuild: the workspace packages from their TypeScript sources (workspace-sources.mjs). */
export function workspaceSources(o?: { externalPackages?: boolean }): Plugin;
