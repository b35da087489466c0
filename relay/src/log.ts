import type { LogLevel } from "./config";

/**
 * Structured JSON logs, one line per record, to stdout: journald (Linux) and the Windows
 * start-up task's wrapper (which appends them to a log file) pick them up as they are. Callers never pass secrets (the key is redacted at start).
 */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function jsonLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line),
  base: Record<string, unknown> = {},
  now: () => number = Date.now,
): Logger {
  const min = RANK[level];
  const emit = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    write(
      `${JSON.stringify({ time: new Date(now()).toISOString(), level: lvl, msg, ...base, ...fields })}\n`,
    );
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export const errorText = (e: unknown): string =>
  e instanceof Error ? `${e.name}: ${e.message}${causeText(e)}` : String(e);

const causeText = (e: Error): string => {
  const cause = (e as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (${cause.message})` : "";
};
