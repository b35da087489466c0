// Packages the relay for the VM extension: the relay's own bundler (relay/scripts/bundle.mjs)
// builds relay/dist-bundle/, then <out>/relay/ gets what upload-relay.sh puts in the container:
//   install-extension.sh / .ps1     run by the Custom Script extension (infra/relay/extension.bicep),
//                                   from relay/packaging/{linux,windows}/
//   quiesce-relay-linux.tar.gz      bundle, Linux x64 single executable (when built), install.sh,
//                                   quiesce-relay.service, uninstall.sh
//   quiesce-relay-windows.zip       bundle, install.ps1, run-relay.ps1, uninstall.ps1
//   quiesce-relay.js, VERSION, SHA256SUMS
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { entriesOf, writeTarGz, writeZip } from "./archive.mjs";

/**
 * @param {string} root @param {string} out
 * @param {{ sea: boolean, windowsExe?: string }} options windowsExe: a quiesce-relay.exe built on
 *   Windows (docs/relay.md); install.ps1 prefers it to quiesce-relay.js + the VM's node.exe
 */
export function packageRelay(root, out, { sea, windowsExe }) {
  const version = JSON.parse(readFileSync(join(root, "relay", "package.json"), "utf8")).version;
  execFileSync(
    process.execPath,
    [join(root, "relay", "scripts", "bundle.mjs"), ...(sea ? ["--sea"] : [])],
    {
      stdio: "inherit",
      cwd: root,
    },
  );
  const bundleDir = join(root, "relay", "dist-bundle");
  const js = {
    name: "quiesce-relay.js",
    data: readFileSync(join(bundleDir, "quiesce-relay.js")),
    mode: 0o755,
  };
  const exe = join(bundleDir, "quiesce-relay-linux-x64");
  // The relay's install scripts (relay/packaging/) expect a flat archive: the program, the
  // installer and its companions side by side. The Linux single executable is named
  // quiesce-relay there (install.sh prefers it to the bundle + node).
  const packaged = (os) =>
    entriesOf(join(root, "relay", "packaging", os)).filter(
      (e) => !e.name.startsWith("install-extension."),
    );
  const linux = [js, ...packaged("linux")];
  if (sea && existsSync(exe))
    linux.push({ name: "quiesce-relay", data: readFileSync(exe), mode: 0o755 });
  const windows = [js, ...packaged("windows")];
  if (windowsExe)
    windows.push({ name: "quiesce-relay.exe", data: readFileSync(windowsExe), mode: 0o755 });

  const stage = join(out, "relay");
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  writeTarGz(join(stage, "quiesce-relay-linux.tar.gz"), linux);
  writeZip(join(stage, "quiesce-relay-windows.zip"), windows);
  // The Custom Script extension's entry points (fileUris next to the archives).
  cpSync(
    join(root, "relay", "packaging", "linux", "install-extension.sh"),
    join(stage, "install-extension.sh"),
  );
  cpSync(
    join(root, "relay", "packaging", "windows", "install-extension.ps1"),
    join(stage, "install-extension.ps1"),
  );
  writeFileSync(join(stage, "quiesce-relay.js"), js.data, { mode: 0o755 });
  writeFileSync(join(stage, "VERSION"), `${version}\n`);
  const sums = readdirSync(stage)
    .sort()
    .map(
      (f) =>
        `${createHash("sha256")
          .update(readFileSync(join(stage, f)))
          .digest("hex")}  ${f}`,
    );
  writeFileSync(join(stage, "SHA256SUMS"), `${sums.join("\n")}\n`);
  console.log(`relay ${version}: ${relative(root, stage)}/ (${readdirSync(stage).join(", ")})`);
  return { stage, version };
}
