#!/usr/bin/env node
// Bundles the CLI into one file, dist/quiesce.cjs, which bin/quiesce.js runs: @quiesce/protocol
// (a workspace package, never published) from its TypeScript sources, and zod, inlined, so the
// published package depends on nothing and needs no build of the workspace; the third-party
// licenses are appended to it. Run by `npm pack` / `npm publish` (prepack), by bin/quiesce.js in a
// checkout when the bundle is missing or older than a file it was built from, and by the tests.
// Usage: node cli/scripts/bundle.mjs                 (dist/quiesce.cjs)
//        node cli/scripts/bundle.mjs --check-publishable   (prepublishOnly: see below)
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { workspaceSources } from "../../scripts/esbuild/workspace-sources.mjs";
import { writeAtomically } from "../../scripts/fs/write-atomically.mjs";

const cliDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = resolve(cliDir, "..");
export const BUNDLE = join(cliDir, "dist", "quiesce.cjs");
/** Next to the bundle: when it was started and what it was built from, for bin/quiesce.js. */
export const inputsFile = (outfile) => outfile.replace(/\.cjs$/, ".inputs.json");

/** @param {string} outfile */
export function cliBuildOptions(outfile) {
  return {
    entryPoints: [join(cliDir, "src", "main.ts")],
    outfile,
    absWorkingDir: repoDir, // the metafile's input paths are relative to the repository
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    minify: true,
    keepNames: true,
    legalComments: "eof",
    metafile: true,
    write: false,
    plugins: [workspaceSources()],
    logLevel: "error",
  };
}

/** The LICENSE of every npm package the bundle inlines (MIT asks for the notice in every copy). */
function licenses(inputs) {
  const packages = new Set(
    inputs.flatMap((f) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1] ?? []),
  );
  return [...packages].sort().flatMap((dir) => {
    const file = ["LICENSE", "LICENSE.md", "license"].find((n) =>
      existsSync(join(repoDir, dir, n)),
    );
    if (!file) return [];
    const { name, version } = JSON.parse(readFileSync(join(repoDir, dir, "package.json"), "utf8"));
    const text = readFileSync(join(repoDir, dir, file), "utf8").replaceAll("*/", "* /");
    return [`/*! ${name}@${version}\n${text.trim()}\n*/`];
  });
}

/** Builds the bundle (and its inputs list) at `outfile`. */
export async function bundleCli(outfile = BUNDLE) {
  const startedAt = Date.now();
  const result = await build(cliBuildOptions(outfile));
  const inputs = Object.keys(result.metafile.inputs);
  const code = result.outputFiles.find((f) => f.path.endsWith(".cjs"))?.text ?? "";
  writeAtomically(inputsFile(outfile), JSON.stringify({ startedAt, inputs }));
  writeAtomically(outfile, `${code}${licenses(inputs).join("\n")}\n`);
}

/**
 * The bundle inlines every dependency, so the published package.json must name none: one that
 * names @quiesce/protocol would make `npm install` look for a package that is not on the registry
 * (or, worse, find someone else's). Build-time packages belong in devDependencies.
 */
function checkPublishable() {
  const pkg = JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8"));
  const deps = Object.keys(pkg.dependencies ?? {});
  if (deps.length > 0) {
    process.stderr.write(
      `cli/package.json: the bundle inlines ${deps.join(", ")}; move them to devDependencies before publishing\n`,
    );
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  if (process.argv.includes("--check-publishable")) checkPublishable();
  else await bundleCli();
}
