// esbuild options shared by the release bundle, the benchmark and the CLI tests, so all three
// run the same artifact.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { workspaceSources } from "../../scripts/esbuild/workspace-sources.mjs";
import { brotliPacked } from "./brotli-cache.mjs";

const relayDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const packCache = join(relayDir, "..", "node_modules", ".cache", "quiesce-relay-embedded");

/**
 * @azure/identity is only needed in managedIdentity mode, yet merely carrying its ~1 MB of code
 * in the bundle costs the relay ~9 MB of resident memory; @kubernetes/client-node (the built-in
 * Kubernetes drain, QUIESCE_KUBERNETES_DRAIN) is larger still. So each is bundled separately and
 * embedded as a string, compiled on first use: one file still, and a relay that does not use
 * them never pays for them.
 */
function embedded(
  specifier,
  label,
  contents = `module.exports = require(${JSON.stringify(specifier)});`,
) {
  const namespace = `embedded-${label}`;
  const escaped = specifier.replace(/[/.@-]/g, (c) => `\\${c}`);
  return {
    name: namespace,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${escaped}$`) }, () => ({ path: label, namespace }));
      b.onLoad({ filter: /.*/, namespace }, async () => {
        const out = await build({
          stdin: {
            contents,
            resolveDir: relayDir,
            loader: "js",
          },
          bundle: true,
          platform: "node",
          target: "node22",
          format: "cjs",
          minify: true,
          keepNames: true,
          write: false,
          logLevel: "error",
        });
        // Compressed (brotli: a tenth of the size): V8 keeps the bundle's source for lazy compiling,
        // so what is carried here is resident memory even when never used. Kept between builds
        // (./brotli-cache.mjs).
        const code = out.outputFiles[0].contents;
        const packed = brotliPacked(code, packCache).toString("base64");
        return {
          contents: `const Module = require("node:module");
const { brotliDecompressSync } = require("node:zlib");
const m = new Module("quiesce-relay:${specifier}");
m._compile(brotliDecompressSync(Buffer.from("${packed}", "base64")).toString("utf8"), "quiesce-relay-${label}.js");
module.exports = m.exports;`,
          loader: "js",
        };
      });
    },
  };
}

/**
 * zod's classic API exports every locale (`z.locales`), ~40 languages of error messages that are
 * built at load time and cost resident memory; the relay only ever uses English (zod's default),
 * so the locale index is replaced with one that has `en` alone.
 */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/]/.test(args.importer)) return undefined;
      return {
        path: join(dirname(args.importer), "..", "locales", "en.js"),
        namespace: "zod-en-only",
      };
    });
    b.onLoad({ filter: /.*/, namespace: "zod-en-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

/** @param {{ outfile: string, minify?: boolean }} o */
export function relayBuildOptions(o) {
  return {
    entryPoints: [join(relayDir, "src", "cli.ts")],
    outfile: o.outfile,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    minify: o.minify ?? true,
    keepNames: true, // error names (SettingsError, HttpTimeoutError...) stay readable in logs
    legalComments: "eof",
    // The workspace package from source, so the bundle does not depend on a prior `tsc -b`.
    plugins: [
      workspaceSources(),
      embedded("@azure/identity", "azure-identity"),
      // Only what relay/src/kubernetes/client.ts uses, so the rest of the client is tree-shaken.
      embedded(
        "@kubernetes/client-node",
        "kubernetes-client",
        'export { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";',
      ),
      englishOnlyZod,
    ],
    logLevel: "warning",
  };
}
