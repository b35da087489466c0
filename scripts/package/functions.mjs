// Packages the Function app: one esbuild bundle of the app's TypeScript entry point (production
// code only, no node_modules) with one lazy-*.js beside it per module the app imports
// dynamically (loaded on first use, lazyChunks.mjs), host.json and a dependency-free
// package.json, staged in <out>/functions/ (what azd deploys) and zipped to
// <out>/functions.zip (az functionapp deploy).
import { cpSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { buildPage } from "../../functions/scripts/build-page.mjs";
import { workspaceSources } from "../esbuild/workspace-sources.mjs";
import { entriesOf, writeZip } from "./archive.mjs";
import { buildWithLazyChunks } from "./lazyChunks.mjs";
import { zodEnglishOnly } from "./zodEnglishOnly.mjs";

/** @param {string} root repository root @param {string} out artifacts folder */
export async function packageFunctions(root, out) {
  const pkg = JSON.parse(readFileSync(join(root, "functions", "package.json"), "utf8"));
  // "main" names the compiled file (dist/app.js); bundle its TypeScript source instead, so the
  // package needs neither `tsc -b` nor the workspace symlinks.
  const entry = join(
    root,
    "functions",
    pkg.main.replace(/^dist\//, "src/").replace(/\.js$/, ".ts"),
  );
  const stage = join(out, "functions");
  rmSync(stage, { recursive: true, force: true });
  // app.js holds what registering the handlers and answering a report need; each dynamic
  // import() (the Azure Monitor distro, pkijs) is its own lazy-*.js beside it (lazyChunks.mjs).
  await buildWithLazyChunks(entry, join(stage, pkg.main), {
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    sourcemap: "linked", // stack traces in Application Insights map back to the TypeScript
    keepNames: true,
    legalComments: "linked",
    // Provided by the Functions Node worker at run time, not an npm package.
    external: ["@azure/functions-core"],
    plugins: [workspaceSources(), zodEnglishOnly()],
    logLevel: "warning",
  });
  // The status page's static files, next to the bundle, where functions/src/ui/assets.ts looks.
  await buildPage(join(stage, dirname(pkg.main), "page"));
  cpSync(join(root, "functions", "host.json"), join(stage, "host.json"));
  // No dependencies: everything is in the bundle, so a remote build (if any) installs nothing.
  const manifest = {
    name: pkg.name,
    version: pkg.version,
    private: true,
    main: pkg.main,
    dependencies: {},
  };
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const zip = join(out, "functions.zip");
  writeZip(zip, entriesOf(stage));
  console.log(`functions: ${relative(root, zip)} (${Math.round(statSync(zip).size / 1024)} KiB)`);
  return { stage, zip, main: join(stage, pkg.main) };
}
