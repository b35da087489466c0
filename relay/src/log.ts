import { redact, redactDeep } from "@quiesce/protocol";
import type { LogLevel } from "./config";

/**
 * Structured JSON logs, one line per record, to stdout: journald (Linux) and the Windows
 * start-up task's wrapper (which appends them to a log file) pick them up as they are. Every line
 * is redacted (@quiesce/protocol's redact): error texts carry what servers and hooks wrote.
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
    const record = { level: lvl, msg: redact(msg), ...base, ...redactDeep(fields) };
    write(`${JSON.stringify({ time: new Date(now()).toISOString(), ...record })}\n`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** Any logger, redacted: what the relay's loops log passes through this whatever the sink. */
export function redactingLogger(l: Logger): Logger {
  const wrap =
    (f: Logger["info"]) =>
    (msg: string, fields?: Record<string, unknown>): void =>
      f(redact(msg), fields && redactDeep(fields));
  return { debug: wrap(l.debug), info: wrap(l.info), warn: wrap(l.warn), error: wrap(l.error) };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export const errorText = (e: unknown): string =>
  e instanceof Error ? `${e.name}: ${e.message}${causeText(e)}` : String(e);

const causeText = (e: Error): string => {
  const cause = (e as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (${cause.message})` : "";
};
