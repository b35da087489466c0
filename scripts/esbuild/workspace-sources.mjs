// esbuild: the workspace packages from their TypeScript sources, subpaths included
// ("@quiesce/protocol" -> protocol/src/index.ts, "@quiesce/protocol/imds" ->
// protocol/src/imds/index.ts), so a bundle never depends on a prior `tsc -b`.
// Used by the relay bundle, the Function app package and the benchmarks.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** @param {{ externalPackages?: boolean }} [o] externalPackages: leave other bare imports to node_modules */
export function workspaceSources(o = {}) {
  return {
    name: "workspace-sources",
    setup(b) {
      b.onResolve({ filter: /^@quiesce\/[a-z-]+(\/[A-Za-z-]+)?$/ }, (a) => {
        const [, pkg, sub] = /^@quiesce\/([a-z-]+)(?:\/([A-Za-z-]+))?$/.exec(a.path) ?? [];
        const path = join(repo, pkg, "src", sub ?? "", "index.ts");
        return existsSync(path) ? { path } : { errors: [{ text: `no sources for ${a.path}` }] };
      });
      if (o.externalPackages)
        b.onResolve({ filter: /^[^./]/ }, (a) => ({ path: a.path, external: true }));
    },
  };
}
