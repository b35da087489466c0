import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { relayBuildOptions } from "../../scripts/build-options.mjs";
import { tempDir } from "./wait";

/** The relay as shipped, one file for `node`, built into a temp folder (removed by `remove`). */
export async function buildBundle(): Promise<{ bundle: string; remove: () => Promise<void> }> {
  const out = await tempDir();
  const bundle = join(out.path, "quiesce-relay.js");
  await build({ ...relayBuildOptions({ outfile: bundle }), logLevel: "error" });
  return { bundle, remove: out.remove };
}

/**
 * A process whose stdout and stderr are files (so their identities can be named in
 * JOURNAL_STREAM as systemd would name its socket), read back at any time.
 */
export class FileOutputProcess {
  readonly child: ChildProcess;
  private readonly exit: Promise<number | null>;

  constructor(
    args: string[],
    env: Record<string, string>,
    readonly stdoutFile: string,
    readonly stderrFile: string,
  ) {
    const out = openSync(stdoutFile, "a");
    const err = openSync(stderrFile, "a");
    this.child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", out, err],
    });
    closeSync(out);
    closeSync(err);
    this.exit = new Promise((r) => this.child.once("exit", (code) => r(code)));
  }

  stdout = () => readFileSync(this.stdoutFile, "utf8");
  stderr = () => readFileSync(this.stderrFile, "utf8");

  /** SIGTERM (SIGKILL if `kill`), then the exit code. */
  async stop(kill = false): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null)
      this.child.kill(kill ? "SIGKILL" : "SIGTERM");
    return this.exit;
  }

  exited(): Promise<number | null> {
    return this.exit;
  }
}

/** `<device>:<inode>` of a file, as systemd writes JOURNAL_STREAM for its socket. */
export function streamIdOf(file: string): string {
  const st = statSync(file, { bigint: true });
  return `${st.dev}:${st.ino}`;
}
