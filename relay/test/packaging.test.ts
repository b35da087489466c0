import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { relayBuildOptions } from "../scripts/build-options.mjs";
import { EXIT } from "../src/cliArgs";
import { tempDir } from "./support/wait";

/** The `node` install.sh finds (`command -v node`): the unit names it as found on PATH. */
const nodeOnPath = () =>
  spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).stdout.trim();

/**
 * The Linux install and uninstall scripts, run for real under DESTDIR with a systemctl stand-in
 * that records its calls (the test machine has no systemd, and must not be changed).
 */
describe("Linux install.sh / uninstall.sh", () => {
  const linux = resolve(__dirname, "../packaging/linux");
  let work: Awaited<ReturnType<typeof tempDir>>;
  let from = "";
  let stubs = "";
  let root = "";
  const settings = {
    QUIESCE_COORDINATOR_URL: "https://func-quiesce.azurewebsites.net",
    QUIESCE_CLUSTER: "web",
    QUIESCE_ENTRA_AUDIENCE: "api://quiesce",
    QUIESCE_DRY_RUN: true,
  };
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64");

  beforeAll(async () => {
    work = await tempDir();
    from = join(work.path, "artifacts");
    stubs = join(work.path, "bin");
    mkdirSync(from);
    mkdirSync(stubs);
    await build({
      ...relayBuildOptions({ outfile: join(from, "quiesce-relay.js") }),
      logLevel: "error",
    });
    for (const f of ["install.sh", "uninstall.sh", "quiesce-relay.service"])
      copyFileSync(join(linux, f), join(from, f));
    writeFileSync(
      join(stubs, "systemctl"),
      `#!/bin/sh\necho "$*" >> "${work.path}/systemctl.log"\n`,
      { mode: 0o755 },
    );
  });
  afterAll(async () => {
    await work.remove();
  });
  let n = 0;
  beforeEach(() => {
    root = join(work.path, `root-${n++}`);
    writeFileSync(join(work.path, "systemctl.log"), "");
  });

  const sh = (script: string, ...args: string[]) =>
    spawnSync("sh", [join(from, script), ...args], {
      encoding: "utf8",
      env: { PATH: `${stubs}:${process.env.PATH}`, DESTDIR: root },
    });

  it("uses the x86_64 single executable only on x86_64, and the bundle on other machines (arm64)", () => {
    const both = join(work.path, "with-exe");
    mkdirSync(both, { recursive: true });
    for (const f of ["install.sh", "quiesce-relay.service", "quiesce-relay.js"])
      copyFileSync(join(from, f), join(both, f));
    // Stands in for the executable: accepts --check-config like the real one.
    writeFileSync(join(both, "quiesce-relay"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const install = (arch: string) =>
      spawnSync(
        "sh",
        [
          join(both, "install.sh"),
          "--from",
          both,
          "--settings-base64",
          b64(settings),
          "--no-start",
        ],
        {
          encoding: "utf8",
          env: { PATH: `${stubs}:${process.env.PATH}`, DESTDIR: root, QUIESCE_INSTALL_ARCH: arch },
        },
      );
    const unit = () => readFileSync(join(root, "etc/systemd/system/quiesce-relay.service"), "utf8");
    expect(install("x86_64").status).toBe(0);
    expect(unit()).toContain("ExecStart=/opt/quiesce-relay/quiesce-relay --config");
    expect(install("aarch64").status).toBe(0);
    expect(unit()).toContain(
      `ExecStart=${nodeOnPath()} /opt/quiesce-relay/quiesce-relay.js --config`,
    );
  });

  it("installs the bundle, the settings (root-only) and the unit, then enables and starts the service", () => {
    const r = sh("install.sh", "--from", from, "--settings-base64", b64(settings));
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(existsSync(join(root, "opt/quiesce-relay/quiesce-relay.js"))).toBe(true);
    const conf = join(root, "etc/quiesce-relay/relay.json");
    expect(JSON.parse(readFileSync(conf, "utf8"))).toEqual(settings);
    expect(statSync(conf).mode & 0o777).toBe(0o600);
    const unit = readFileSync(join(root, "etc/systemd/system/quiesce-relay.service"), "utf8");
    expect(unit).toContain(
      `ExecStart=${nodeOnPath()} /opt/quiesce-relay/quiesce-relay.js --config /etc/quiesce-relay/relay.json`,
    );
    expect(unit).toContain("Restart=always");
    // Invalid settings fail the same way at every restart: the unit stops on the relay's code for
    // them (read from the code), and keeps restarting on anything else (no start limit).
    expect(unit.match(/^RestartPreventExitStatus=(.*)$/m)?.[1]).toBe(String(EXIT.config));
    expect(unit).toMatch(/^StartLimitIntervalSec=0$/m);
    expect(readFileSync(join(work.path, "systemctl.log"), "utf8").trim().split("\n")).toEqual([
      "daemon-reload",
      "enable quiesce-relay.service",
      "restart quiesce-relay.service",
    ]);
  });

  // systemd-analyze, where installed (no systemd needs to run), knows every directive of the unit.
  const analyze = spawnSync("systemd-analyze", ["--version"]).status === 0;
  it.skipIf(!analyze)("installs a unit systemd-analyze verify finds nothing wrong with", () => {
    expect(
      sh("install.sh", "--from", from, "--settings-base64", b64(settings), "--no-start").status,
    ).toBe(0);
    const unit = join(root, "etc/systemd/system/quiesce-relay.service");
    const r = spawnSync("systemd-analyze", ["verify", "--man=no", unit], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("refuses settings the relay would refuse, naming the setting, and installs no unit", () => {
    const r = sh(
      "install.sh",
      "--from",
      from,
      "--settings-base64",
      b64({ ...settings, QUIESCE_CLUSTER: "not valid!" }),
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/QUIESCE_CLUSTER/);
    expect(existsSync(join(root, "etc/systemd/system/quiesce-relay.service"))).toBe(false);
  });

  it("uninstalls, keeping settings and state unless asked to purge", () => {
    expect(
      sh("install.sh", "--from", from, "--settings-base64", b64(settings), "--no-start").status,
    ).toBe(0);
    expect(sh("uninstall.sh").status).toBe(0);
    expect(existsSync(join(root, "opt/quiesce-relay"))).toBe(false);
    expect(existsSync(join(root, "etc/systemd/system/quiesce-relay.service"))).toBe(false);
    expect(existsSync(join(root, "etc/quiesce-relay/relay.json"))).toBe(true);
    expect(sh("uninstall.sh", "--purge").status).toBe(0);
    expect(existsSync(join(root, "etc/quiesce-relay"))).toBe(false);
    expect(readFileSync(join(work.path, "systemctl.log"), "utf8")).toContain(
      "disable --now quiesce-relay.service",
    );
  });
});
