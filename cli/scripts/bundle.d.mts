import type { BuildOptions } from "esbuild";

/** The CLI in one file (bundle.mjs): where `npm pack` and bin/quiesce.js put it. */
export const BUNDLE: string;
export function inputsFile(outfile: string): string;
export function cliBuildOptions(outfile: string): BuildOptions;
/** Builds the bundle and its inputs list at `outfile` (default BUNDLE). */
export function bundleCli(outfile?: string): Promise<void>;
