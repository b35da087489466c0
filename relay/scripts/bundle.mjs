#!/usr/bin/env node
// Builds the relay for installation on VMs:
//   dist-bundle/quiesce-relay.js          one file, runs with `node`, needs no node_modules
//   dist-bundle/quiesce-relay-linux-x64   (with --sea, on Linux x64) a Node single executable
//   dist-bundle/quiesce-relay-linux.tar.gz + install-extension.sh      (with --package)
//   dist-bundle/quiesce-relay-windows.zip  + install-extension.ps1     (with --package)
// Usage: node relay/scripts/bundle.mjs [--sea] [--package] [--windows-exe PATH]
//   --windows-exe: a quiesce-relay.exe built on Windows (see docs/relay.md) to put in the zip;
//   without it the zip carries quiesce-relay.js and the installer uses the VM's node.exe.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { relayBuildOptions } from "./build-options.mjs";

const relayDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = resolve(relayDir, "..");
const outDir = join(relayDir, "dist-bundle");
const bundle = join(outDir, "quiesce-relay.js");

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

// cli.ts starts with "#!/usr/bin/env node"; esbuild keeps it, so the file is directly executable.
await build(relayBuildOptions({ outfile: bundle }));
chmodSync(bundle, 0o755);
console.log(`bundle: ${bundle} (${Math.round(statSync(bundle).size / 1024)} KiB)`);

if (process.argv.includes("--sea")) buildSea();
if (process.argv.includes("--package")) buildPackages();

/** The archives infra/relay/extension.bicep's Custom Script extensions download. */
function buildPackages() {
  const pkg = join(relayDir, "packaging");
  const stage = (name, files) => {
    const dir = join(outDir, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    for (const [from, to] of files) copyFileSync(from, join(dir, to));
    return dir;
  };
  const linux = [
    [bundle, "quiesce-relay.js"],
    [join(pkg, "linux", "install.sh"), "install.sh"],
    [join(pkg, "linux", "uninstall.sh"), "uninstall.sh"],
    [join(pkg, "linux", "quiesce-relay.service"), "quiesce-relay.service"],
  ];
  const sea = join(outDir, "quiesce-relay-linux-x64");
  if (existsSync(sea)) linux.push([sea, "quiesce-relay"]);
  const linuxDir = stage("linux", linux);
  for (const f of ["install.sh", "uninstall.sh", "quiesce-relay.js"])
    chmodSync(join(linuxDir, f), 0o755);
  if (existsSync(join(linuxDir, "quiesce-relay")))
    chmodSync(join(linuxDir, "quiesce-relay"), 0o755);
  execFileSync("tar", ["-czf", join(outDir, "quiesce-relay-linux.tar.gz"), "-C", linuxDir, "."], {
    stdio: "inherit",
  });
  copyFileSync(join(pkg, "linux", "install-extension.sh"), join(outDir, "install-extension.sh"));

  const windows = [
    [bundle, "quiesce-relay.js"],
    [join(pkg, "windows", "install.ps1"), "install.ps1"],
    [join(pkg, "windows", "uninstall.ps1"), "uninstall.ps1"],
    [join(pkg, "windows", "run-relay.ps1"), "run-relay.ps1"],
  ];
  const i = process.argv.indexOf("--windows-exe");
  if (i >= 0 && process.argv[i + 1])
    windows.push([resolve(process.argv[i + 1]), "quiesce-relay.exe"]);
  const windowsDir = stage("windows", windows);
  const zip = join(outDir, "quiesce-relay-windows.zip");
  rmSync(zip, { force: true });
  execFileSync("zip", ["-q", "-j", zip, ...windows.map(([, to]) => join(windowsDir, to))], {
    stdio: "inherit",
  });
  copyFileSync(
    join(pkg, "windows", "install-extension.ps1"),
    join(outDir, "install-extension.ps1"),
  );
  rmSync(linuxDir, { recursive: true });
  rmSync(windowsDir, { recursive: true });
  console.log(
    `packages: ${join(outDir, "quiesce-relay-linux.tar.gz")} (${linux.length} files), ${zip} (${windows.length} files)`,
  );
}

/**
 * Node's single-executable-application support (Node >= 20): a preparation blob of the bundle is
 * injected into a copy of this very `node` binary with postject. The same recipe on Windows with
 * node.exe gives quiesce-relay.exe (see docs/relay.md); it must be built on the target platform.
 */
function buildSea() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    console.log(
      `sea: skipped (this script builds the Linux x64 executable; this is ${process.platform}-${process.arch})`,
    );
    return;
  }
  const config = join(outDir, "sea-config.json");
  // The embedder compiles the main script as-is and, unlike the CLI loader, refuses a hashbang.
  const main = join(outDir, "sea-main.js");
  writeFileSync(main, readFileSync(bundle, "utf8").replace(/^#!.*\n/, ""));
  const blob = join(outDir, "sea-prep.blob");
  const exe = join(outDir, "quiesce-relay-linux-x64");
  writeFileSync(
    config,
    JSON.stringify({
      main,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
    }),
  );
  execFileSync(process.execPath, ["--experimental-sea-config", config], { stdio: "inherit" });
  copyFileSync(process.execPath, exe);
  chmodSync(exe, 0o755);
  const postject = join(repoDir, "node_modules", "postject", "dist", "cli.js");
  execFileSync(
    process.execPath,
    [
      postject,
      exe,
      "NODE_SEA_BLOB",
      blob,
      "--sentinel-fuse",
      "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2",
    ],
    { stdio: "inherit" },
  );
  for (const f of [config, blob, main]) rmSync(f);
  const version = execFileSync(exe, ["--version"], { encoding: "utf8" }).trim();
  console.log(
    `sea: ${exe} (${Math.round(statSync(exe).size / 1024 / 1024)} MiB), --version prints ${version}`,
  );
}
