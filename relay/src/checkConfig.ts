import { accessSync, constants, statSync } from "node:fs";
import { posix, win32 } from "node:path";
import { REBALANCE_API_VERSION } from "@quiesce/protocol/imds";
import type { HookTargets, RelayConfig } from "./options";
import { settingName } from "./options";

/**
 * What `--check-config` checks beyond the settings' values: that each hook command's program is
 * there. A drain command that does not exist fails only when an event comes (exit 127, and the
 * event waits for NotBefore), so it is refused here, where the operator is looking. Only what can
 * be told from the text is checked: the command's first word, found as a path or on PATH as the
 * shell would find it; a command starting with a shell builtin or keyword, an expansion ($x, `…`,
 * ~, a glob) or, on Windows, a cmdlet is left alone and said to be.
 */

export interface CommandCheckEnv {
  platform: NodeJS.Platform;
  /** PATH (Path on Windows) of the process: the service's may differ (docs/relay.md). */
  path: string;
  cwd: string;
  /** A regular file that may be run (on Windows: that exists). */
  isRunnable?: (file: string, platform: NodeJS.Platform) => boolean;
}

export interface CommandChecks {
  /** Each hook command whose program is missing, naming its setting: refused. */
  missing: string[];
  /** Each hook command that could not be checked, and why. */
  unchecked: string[];
}

/** Builtins and keywords of POSIX sh (and bash's usual ones): nothing on PATH to look for. */
const SH_BUILTINS = new Set(
  (
    "! { } ( ) [[ ]] . : [ alias bg break case cd command continue do done echo elif else esac " +
    "eval exec exit export false fc fg fi for function getopts hash if in jobs kill let local " +
    "printf pwd read readonly return select set shift source test then time times trap true " +
    "type ulimit umask unalias unset until wait while"
  ).split(" "),
);

type FirstWord = { word: string } | { unchecked: string };

/** The program a `sh -c` command runs first, when the text alone says it. */
function shFirstWord(command: string): FirstWord {
  const words = command.trim().split(/\s+/);
  // Leading assignments (FOO=bar cmd) set the environment of the command after them.
  let i = 0;
  while (i < words.length && /^[A-Za-z_]\w*=[^'"`$\\]*$/.test(words[i] as string)) i++;
  const raw = (words[i] ?? "").split(/[;&|<>()]/)[0] as string;
  if (raw === "") return { unchecked: "it does not start with a program" };
  const literal = /^'[^']*'$/.test(raw) || /^"[^"$`\\]*"$/.test(raw) ? raw.slice(1, -1) : raw;
  if (/['"`$\\*?[~]/.test(literal))
    return { unchecked: `its first word, ${raw}, is expanded by the shell` };
  if (SH_BUILTINS.has(literal)) return { unchecked: `${literal} is a shell builtin or keyword` };
  return { word: literal };
}

/** The script or program a PowerShell `-Command` runs first, when it is named by a path. */
function powershellFirstWord(command: string): FirstWord {
  const m = /^\s*(?:&\s*)?(?:'([^']+)'|"([^"$`]+)"|(\S+))/.exec(command);
  const word = m?.[1] ?? m?.[2] ?? m?.[3] ?? "";
  // Cmdlets, functions and aliases (Stop-Service, iisreset) live in PowerShell, not on disk.
  if (!/[\\/]/.test(word) && !/\.(ps1|exe|cmd|bat|com)$/i.test(word))
    return { unchecked: `${word || "its first word"} is not a path (a cmdlet is not looked for)` };
  if (/[$`*?]/.test(word)) return { unchecked: `its first word, ${word}, is expanded` };
  return { word };
}

const runnable = (file: string, platform: NodeJS.Platform): boolean => {
  try {
    if (!statSync(file).isFile()) return false;
    if (platform !== "win32") accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Where `word` runs from: itself when a path, else the first runnable match on PATH. */
function locate(word: string, env: CommandCheckEnv): string | undefined {
  const isRunnable = env.isRunnable ?? runnable;
  // The platform's own path rules, so that Windows' are checked (and tested) anywhere.
  const path = env.platform === "win32" ? win32 : posix;
  if (/[\\/]/.test(word)) {
    const file = path.resolve(env.cwd, word);
    return isRunnable(file, env.platform) ? file : undefined;
  }
  const names =
    env.platform === "win32" && !/\.\w+$/.test(word)
      ? [".exe", ".cmd", ".bat", ".com"].map((e) => word + e)
      : [word];
  for (const dir of env.path.split(path.delimiter).filter((d) => d !== ""))
    for (const name of names) {
      const file = path.resolve(dir, name);
      if (isRunnable(file, env.platform)) return file;
    }
  return undefined;
}

/** Each hook command's program: missing ones (refused), and those that cannot be checked. */
export function checkHookCommands(
  commands: HookTargets["commands"],
  env: CommandCheckEnv,
): CommandChecks {
  const out: CommandChecks = { missing: [], unchecked: [] };
  for (const [hook, command] of [
    ["DRAIN_COMMAND", commands.drain],
    ["RECOVER_COMMAND", commands.recover],
  ] as const) {
    if (command === undefined) continue;
    const name = settingName(hook);
    const first = env.platform === "win32" ? powershellFirstWord(command) : shFirstWord(command);
    if ("unchecked" in first) {
      out.unchecked.push(`${name} not checked: ${first.unchecked}`);
      continue;
    }
    if (locate(first.word, env)) continue;
    out.missing.push(
      /[\\/]/.test(first.word)
        ? `${name}: ${first.word} does not exist or is not executable`
        : `${name}: ${first.word} is not found on PATH; give its full path`,
    );
  }
  return out;
}

/**
 * What the Scheduled Events api-version means for Spot rebalance recommendations, which IMDS
 * serves only at REBALANCE_API_VERSION (an opt-in: the default api-version never shows them).
 */
export function rebalanceNotes(config: Pick<RelayConfig, "imds" | "rebalanceAction">): string[] {
  const v = config.imds.apiVersion;
  if (v < REBALANCE_API_VERSION) return [];
  const carries =
    v === REBALANCE_API_VERSION
      ? "carries Spot rebalance recommendations (SpotRebalanceRecommendation)"
      : `may carry Spot rebalance recommendations (only ${REBALANCE_API_VERSION} is known to)`;
  const action =
    config.rebalanceAction === "hooks"
      ? "the drain hook runs for one, told it is advisory, and the recover hook when it leaves"
      : "reported only, no hook runs";
  return [
    `${settingName("IMDS_API_VERSION")}=${v} ${carries}: advisory, never approved; ${settingName("REBALANCE_ACTION")}=${config.rebalanceAction}: ${action}`,
  ];
}
