import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { formatWithOptions } from "node:util";
import {
  createLogger,
  LOG_LEVEL_RANK,
  type Logger,
  type LogLevel,
  redact,
  textLine,
} from "@quiesce/protocol";

/**
 * The demo's log: what the coordinator, the relays and any library in this process log goes to a
 * file, one formatted line per record, never to the narrative (which tells the story and nothing
 * else). The narrative's closing lines say where the file is and how many warnings and errors it
 * holds, naming them: a failure logged is never a failure hidden.
 */

/** The Functions host's level names (InvocationContext) and ours, as one scale. */
const LEVEL_NAMES: Record<string, LogLevel> = {
  trace: "trace",
  debug: "debug",
  info: "info",
  information: "info",
  log: "info",
  warn: "warn",
  warning: "warn",
  error: "error",
  critical: "fatal",
  fatal: "fatal",
};

export interface LogTally {
  warnings: number;
  errors: number;
  /** Distinct warning and error lines (source: message, fields dropped), most frequent first. */
  top: Array<{ level: LogLevel; line: string; count: number }>;
}

export interface DemoLog {
  readonly path: string;
  /** One record of `source` ("coordinator", "relay db-0", "console") at `level`. */
  write(source: string, level: string, message: string): void;
  /** A relay's logger (`QUIESCE_DEMO_RELAY_LOG`'s level) writing here. */
  relayLogger(vm: string, level: LogLevel): Logger;
  /**
   * Until the returned function is called, console.* in this process writes here: what a library
   * prints is a log record, not a story line.
   */
  captureConsole(): () => void;
  tally(): LogTally;
  close(): void;
}

/** Opens (truncates) `path`. Records below `minLevel` (default info) are dropped. */
export function openDemoLog(path: string, minLevel: LogLevel = "info"): DemoLog {
  mkdirSync(dirname(path), { recursive: true });
  let fd: number | null = openSync(path, "w", 0o600);
  const min = LOG_LEVEL_RANK[minLevel];
  const counts = new Map<string, { level: LogLevel; count: number }>();
  let warnings = 0;
  let errors = 0;
  const write = (source: string, levelName: string, message: string) => {
    const level = LEVEL_NAMES[levelName.toLowerCase()] ?? "info";
    if (LOG_LEVEL_RANK[level] < min) return;
    // One record, one line: a stack's lines are kept, indented under it.
    const text = redact(message).replace(/\r?\n/g, "\n    ");
    if (fd !== null)
      writeSync(fd, `${new Date().toISOString()} ${level.padEnd(5)} ${source}: ${text}\n`);
    if (LOG_LEVEL_RANK[level] < LOG_LEVEL_RANK.warn) return;
    if (level === "warn") warnings++;
    else errors++;
    const line = `${source}: ${(text.split(" | ")[0] ?? "").split("\n")[0]}`.slice(0, 200);
    const key = `${level} ${line}`;
    const seen = counts.get(key) ?? { level, count: 0 };
    seen.count++;
    counts.set(key, seen);
  };
  return {
    path,
    write,
    relayLogger: (vm, level) =>
      createLogger({
        level,
        sink: (r) => write(`relay ${vm}`, r.level, textLine(r)),
      }),
    captureConsole() {
      const methods = ["log", "info", "warn", "error", "debug", "trace"] as const;
      const saved = methods.map((m) => [m, console[m]] as const);
      for (const m of methods)
        console[m] = (...args: unknown[]) =>
          write(
            "console",
            m,
            formatWithOptions({ breakLength: Number.POSITIVE_INFINITY }, ...args),
          );
      return () => {
        for (const [m, f] of saved) console[m] = f;
      };
    },
    tally: () => ({
      warnings,
      errors,
      top: [...counts]
        .map(([key, v]) => ({
          level: v.level,
          line: key.slice(key.indexOf(" ") + 1),
          count: v.count,
        }))
        .sort((a, b) => b.count - a.count || LOG_LEVEL_RANK[b.level] - LOG_LEVEL_RANK[a.level]),
    }),
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/** The narrative's closing lines about the log: where it is, what went wrong in it. */
export function renderTally(path: string, t: LogTally, shown = 5): string[] {
  const head = `Log: ${path} (coordinator, relays, anything else printed): ${t.warnings} warning(s), ${t.errors} error(s)`;
  if (t.warnings + t.errors === 0) return [head];
  const lines = t.top
    .slice(0, shown)
    .map((e) => `  ${e.level.padEnd(5)} ×${String(e.count).padEnd(3)} ${e.line}`);
  const more = t.top.length - shown;
  return [head, ...lines, ...(more > 0 ? [`  … and ${more} more kind(s): see the log`] : [])];
}
