import { spawn } from "node:child_process";
import { settingName } from "../options";
import { type HookOutcome, lastLine, OutputTail } from "./outcome";

export interface CommandHook {
  command: string;
  env: Record<string, string>;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  platform?: NodeJS.Platform;
}

/** After asking a hook to stop, wait this long before killing it outright. */
const KILL_GRACE_MS = 5_000;

/** The platform shell: sh on Linux, Windows PowerShell on Windows (present on every Windows VM). */
export function shellFor(platform: NodeJS.Platform, command: string): [string, string[]] {
  if (platform === "win32") {
    return [
      "powershell.exe",
      [
        "-NoLogo",
        "-NoProfile",
        "-NonInteractive",
        "-ExecutionPolicy",
        "Bypass",
        "-Command",
        command,
      ],
    ];
  }
  return ["/bin/sh", ["-c", command]];
}

/** Env of the hook: the relay's own, minus its secret, plus the event. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env[settingName("RELAY_KEY")];
  return env;
}

export function runCommandHook(h: CommandHook): Promise<HookOutcome> {
  const platform = h.platform ?? process.platform;
  const [file, args] = shellFor(platform, h.command);
  return new Promise((resolve) => {
    const output = new OutputTail();
    let ended: "timeout" | "interrupted" | undefined;
    let settled = false;
    // Its own process group on POSIX, so a timeout ends the whole tree the script started.
    const child = spawn(file, args, {
      env: childEnv(h.env),
      stdio: ["pipe", "pipe", "pipe"],
      detached: platform !== "win32",
      windowsHide: true,
    });
    const stop = (why: "timeout" | "interrupted") => {
      if (settled || ended) return;
      ended = why;
      killTree(child.pid, platform, "SIGTERM");
      setTimeout(() => killTree(child.pid, platform, "SIGKILL"), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => stop("timeout"), h.timeoutMs);
    const onAbort = () => stop("interrupted");
    h.signal.addEventListener("abort", onAbort, { once: true });
    if (h.signal.aborted) onAbort();

    child.stdout.on("data", (c: Buffer) => output.push(c));
    child.stderr.on("data", (c: Buffer) => output.push(c));
    child.stdin.on("error", () => {}); // a hook that ignores stdin closes it early: fine
    child.stdin.end(h.stdin);

    const finish = (o: HookOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      h.signal.removeEventListener("abort", onAbort);
      resolve(o);
    };
    child.on("error", (e) =>
      finish({
        result: "failed",
        detail: `could not start ${file}: ${e.message}`,
        output: output.text(),
      }),
    );
    child.on("close", (code, sig) => {
      const text = output.text();
      const tail = lastLine(text);
      const suffix = tail ? `: ${tail}` : "";
      if (ended === "interrupted")
        return finish({
          result: "interrupted",
          detail: "relay stopped while the hook ran",
          output: text,
        });
      if (ended === "timeout")
        return finish({
          result: "failed",
          detail: `timed out after ${Math.round(h.timeoutMs / 1000)} s${suffix}`,
          output: text,
        });
      if (code === 0)
        return finish({ result: "succeeded", detail: `exit 0${suffix}`, output: text });
      return finish({
        result: "failed",
        detail: `${code === null ? `signal ${sig}` : `exit ${code}`}${suffix}`,
        output: text,
      });
    });
  });
}

function killTree(pid: number | undefined, platform: NodeJS.Platform, sig: NodeJS.Signals) {
  if (pid === undefined) return;
  try {
    if (platform === "win32") {
      spawn("taskkill", ["/pid", String(pid), "/T", "/F"], {
        windowsHide: true,
        stdio: "ignore",
      }).on("error", () => {});
    } else {
      process.kill(-pid, sig);
    }
  } catch {
    // already gone
  }
}
