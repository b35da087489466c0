// Every dynamic import() of the Function app becomes its own file next to app.js, required on
// first use (esbuild's code splitting needs ESM output; the app is CommonJS). The host then
// parses only what registering the handlers needs when it loads app.js: the Azure Monitor
// distro, pkijs and the like are read from disk when the code that needs them first runs.
import { basename, dirname, join } from "node:path";
import { build } from "esbuild";

/** The chunk's file name for a resolved module: its package, or its source file's name. */
function chunkName(path) {
  const pkg = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(path)?.[1];
  const stem = pkg ?? basename(path).replace(/\.[cm]?[jt]sx?$/, "");
  return `lazy-${stem.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "")}.js`;
}

/** An esbuild plugin: the repository's dynamic import() resolves to an external `./lazy-*.js`, recorded in `found`. */
export function lazyImports(found) {
  return {
    name: "lazy-imports",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        // The repository's own import()s only: a library's (MSAL opening a browser, say) stay
        // as the library bundles them.
        if (args.kind !== "dynamic-import" || args.pluginData?.lazyImports) return undefined;
        if (/[\\/]node_modules[\\/]/.test(args.importer)) return undefined;
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { lazyImports: true },
        });
        if (r.errors.length > 0 || r.external) return r;
        const name = chunkName(r.path);
        const taken = found.get(name);
        if (taken !== undefined && taken !== r.path)
          throw new Error(`lazy chunk ${name}: both ${taken} and ${r.path}`);
        found.set(name, r.path);
        return { path: `./${name}`, external: true };
      });
    },
  };
}

/**
 * Builds `entry` to `outfile` with `options`, then each module it imports dynamically (and
 * theirs, transitively) as a self-contained bundle beside it. Returns the files written.
 */
export async function buildWithLazyChunks(entry, outfile, options) {
  const found = new Map();
  const built = new Set();
  const plugins = [...(options.plugins ?? []), lazyImports(found)];
  // import() as require(): the chunks are CommonJS, loaded without Node's ESM loader.
  options = { ...options, supported: { ...options.supported, "dynamic-import": false } };
  await build({ ...options, entryPoints: [entry], outfile, plugins });
  const files = [outfile];
  for (let more = true; more; ) {
    more = false;
    for (const [name, path] of [...found]) {
      if (built.has(name)) continue;
      built.add(name);
      more = true;
      const file = join(dirname(outfile), name);
      await build({ ...options, entryPoints: [path], outfile: file, plugins });
      files.push(file);
    }
  }
  return files;
}
