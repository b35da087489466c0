// esbuild options shared by the release bundle, the benchmark and the CLI tests, so all three
// run the same artifact.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";
import { build } from "esbuild";
import { workspaceSources } from "../../scripts/esbuild/workspace-sources.mjs";

const relayDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * @azure/identity is only needed in managedIdentity mode, yet merely carrying its ~1 MB of code
 * in the bundle costs the relay ~9 MB of resident memory; @kubernetes/client-node (the built-in
 * Kubernetes drain, QUIESCE_KUBERNETES_DRAIN) is larger still. So each is bundled separately and
 * embedded as a string, compiled on first use: one file still, and a relay that does not use
 * them never pays for them.
 */
function embedded(specifier, label) {
  const namespace = `embedded-${label}`;
  const escaped = specifier.replace(/[/.@-]/g, (c) => `\\${c}`);
  return {
    name: namespace,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${escaped}$`) }, () => ({ path: label, namespace }));
      b.onLoad({ filter: /.*/, namespace }, async () => {
        const out = await build({
          stdin: {
            contents: `module.exports = require(${JSON.stringify(specifier)});`,
            resolveDir: relayDir,
            loader: "js",
          },
          bundle: true,
          platform: "node",
          target: "node20",
          format: "cjs",
          minify: true,
          keepNames: true,
          write: false,
          logLevel: "error",
        });
        // Deflated: a quarter of the size to carry, and no large literal for V8 to scan at start.
        const packed = deflateRawSync(out.outputFiles[0].contents, { level: 9 }).toString("base64");
        return {
          contents: `const Module = require("node:module");
const { inflateRawSync } = require("node:zlib");
const m = new Module("quiesce-relay:${specifier}");
m._compile(inflateRawSync(Buffer.from("${packed}", "base64")).toString("utf8"), "quiesce-relay-${label}.js");
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
    target: "node20",
    format: "cjs",
    minify: o.minify ?? true,
    keepNames: true, // error names (SettingsError, HttpTimeoutError...) stay readable in logs
    legalComments: "eof",
    // The workspace package from source, so the bundle does not depend on a prior `tsc -b`.
    plugins: [
      workspaceSources(),
      embedded("@azure/identity", "azure-identity"),
      embedded("@kubernetes/client-node", "kubernetes-client"),
      englishOnlyZod,
    ],
    logLevel: "warning",
  };
}
