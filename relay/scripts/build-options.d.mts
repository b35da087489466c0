import type { BuildOptions } from "esbuild";
export function relayBuildOptions(o: { outfile: string; minify?: boolean }): BuildOptions;
