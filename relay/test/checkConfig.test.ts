import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkHookCommands } from "../src/checkConfig";
import { checkConfig } from "../src/cli";
import { parseRelaySettings } from "../src/config";
import { tempDir } from "./support/wait";

/**
 * --check-config checks the hook commands it can (issue 31): a drain command whose program is
 * missing is refused there, naming the setting, instead of failing with exit 127 when an event
 * comes; what cannot be told from the text (a builtin, an expansion, a cmdlet) is said to be
 * unchecked, never refused.
 */

let dir: Awaited<ReturnType<typeof tempDir>>;
let bin = "";
beforeAll(async () => {
  dir = await tempDir();
  bin = join(dir.path, "bin");
  await mkdir(bin);
  await writeFile(join(bin, "drain.sh"), "#!/bin/sh\n");
  await chmod(join(bin, "drain.sh"), 0o755);
  await writeFile(join(bin, "notes.txt"), "not a program\n");
  await chmod(join(bin, "notes.txt"), 0o644);
});
afterAll(async () => {
  await dir.remove();
});

const linux = () => ({ platform: "linux" as const, path: `/nonexistent:${bin}`, cwd: dir.path });

describe.skipIf(process.platform === "win32")("hook commands on Linux (sh -c)", () => {
  it("finds a program by path or on PATH, past leading assignments and quotes", () => {
    const ok = [
      join(bin, "drain.sh"),
      `${join(bin, "drain.sh")} --grace 30; echo done`,
      "drain.sh --grace 30",
      "MODE=soft drain.sh",
      `'${join(bin, "drain.sh")}' now`,
      "bin/drain.sh",
    ];
    for (const drain of ok)
      expect(checkHookCommands({ drain }, linux())).toEqual({ missing: [], unchecked: [] });
  });

  it("refuses a missing or non-executable program, naming the setting", () => {
    expect(
      checkHookCommands(
        { drain: "/usr/local/bin/no-such-drain.sh", recover: "no-such-recover --now" },
        linux(),
      ).missing,
    ).toEqual([
      "QUIESCE_DRAIN_COMMAND: /usr/local/bin/no-such-drain.sh does not exist or is not executable",
      "QUIESCE_RECOVER_COMMAND: no-such-recover is not found on PATH; give its full path",
    ]);
    expect(checkHookCommands({ drain: join(bin, "notes.txt") }, linux()).missing).toHaveLength(1);
    expect(checkHookCommands({ drain: bin }, linux()).missing).toHaveLength(1);
  });

  it("leaves alone what the text does not tell: builtins, keywords, expansions", () => {
    const r = checkHookCommands(
      { drain: "echo draining > /tmp/x; sleep 1", recover: "$HOME/recover.sh" },
      linux(),
    );
    expect(r.missing).toEqual([]);
    expect(r.unchecked).toEqual([
      "QUIESCE_DRAIN_COMMAND not checked: echo is a shell builtin or keyword",
      "QUIESCE_RECOVER_COMMAND not checked: its first word, $HOME/recover.sh, is expanded by the shell",
    ]);
  });
});

describe("hook commands on Windows (PowerShell -Command)", () => {
  const present = new Set(["C:\\Quiesce\\drain.ps1", "C:\\Windows\\System32\\iisreset.exe"]);
  const windows = {
    platform: "win32" as const,
    path: "C:\\Windows\\System32",
    cwd: "C:\\",
    isRunnable: (f: string) => present.has(f.replaceAll("/", "\\")),
  };

  it("checks a script or program named by a path, quoted or called with &", () => {
    expect(
      checkHookCommands({ drain: "& 'C:\\Quiesce\\drain.ps1' -Grace 30" }, windows).missing,
    ).toEqual([]);
    expect(checkHookCommands({ drain: "C:\\Quiesce\\missing.ps1" }, windows).missing).toEqual([
      "QUIESCE_DRAIN_COMMAND: C:\\Quiesce\\missing.ps1 does not exist or is not executable",
    ]);
  });

  it("leaves a cmdlet alone: it lives in PowerShell, not on disk", () => {
    expect(checkHookCommands({ drain: "Stop-Service W3SVC" }, windows)).toEqual({
      missing: [],
      unchecked: [
        "QUIESCE_DRAIN_COMMAND not checked: Stop-Service is not a path (a cmdlet is not looked for)",
      ],
    });
  });
});

describe.skipIf(process.platform === "win32")("quiesce-relay --check-config", () => {
  const base = {
    QUIESCE_COORDINATOR_URL: "http://127.0.0.1:7071",
    QUIESCE_CLUSTER: "web",
    QUIESCE_AUTH_MODE: "sharedKey",
    QUIESCE_RELAY_KEY: "0123456789abcdef",
  };
  const run = (settings: Record<string, string>) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = checkConfig(
      parseRelaySettings({ ...base, ...settings }),
      { PATH: bin },
      {
        out: (t) => out.push(t),
        err: (t) => err.push(t),
      },
    );
    return { code, out: out.join(""), err: err.join("") };
  };

  it("exits 2 naming a drain command whose program is missing, printing no settings", () => {
    const r = run({ QUIESCE_DRAIN_COMMAND: "/opt/drain/missing.sh" });
    expect(r).toEqual({
      code: 2,
      out: "",
      err: "quiesce-relay: QUIESCE_DRAIN_COMMAND: /opt/drain/missing.sh does not exist or is not executable\n",
    });
  });

  it("prints the settings, the key redacted, and exits 0 when the programs are there", () => {
    const r = run({ QUIESCE_DRAIN_COMMAND: "drain.sh", QUIESCE_RECOVER_COMMAND: "true" });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ QUIESCE_DRAIN_COMMAND: "drain.sh" });
    expect(r.out).not.toContain(base.QUIESCE_RELAY_KEY);
    expect(r.err).toBe(
      "quiesce-relay: note: QUIESCE_RECOVER_COMMAND not checked: true is a shell builtin or keyword\n",
    );
  });
});
