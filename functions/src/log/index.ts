import type { InvocationContext } from "@azure/functions";
import {
  createLogger,
  jsonLine,
  type LogFields,
  type Logger,
  type LogLevel,
  type LogSink,
  textLine,
} from "@quiesce/protocol";

/**
 * The coordinator's sinks for @quiesce/protocol's logger (protocol/src/log).
 *
 * In an invocation: the InvocationContext's methods, which the Functions host sends to
 * Application Insights as traces with the level and the invocation's id (its host.json filters
 * them by level, so the logger passes everything on). The fields follow the message as logfmt,
 * which Kusto's parse-kv turns back into columns.
 *
 * Outside one (creating the coordinator, the control plane's follow-ups and hook runs, which
 * outlive the invocation that started them: a finished invocation's context warns on every
 * line): JSON lines on the worker's stdout, error and fatal on stderr, which the host forwards to
 * Application Insights too (category Host.Function.Console).
 */

const CONTEXT_METHOD: Record<LogLevel, "trace" | "debug" | "info" | "warn" | "error"> = {
  trace: "trace",
  debug: "debug",
  info: "info",
  warn: "warn",
  error: "error",
  fatal: "error", // the host has no level above error (its Critical is not offered to workers)
};

export const invocationSink =
  (context: Pick<InvocationContext, "trace" | "debug" | "info" | "warn" | "error">): LogSink =>
  (r) =>
    context[CONTEXT_METHOD[r.level]](textLine(r));

/** The worker's own output: stdout, or stderr from error up (the host marks those as errors). */
export const processSink =
  (
    out: (line: string) => unknown = (l) => process.stdout.write(l),
    err: (line: string) => unknown = (l) => process.stderr.write(l),
  ): LogSink =>
  (r) =>
    (r.level === "error" || r.level === "fatal" ? err : out)(jsonLine(r));

/** The coordinator's logger outside any invocation. */
export function appLogger(level: LogLevel = "info", sink: LogSink = processSink()): Logger {
  return createLogger({ sink, level });
}

/** A logger writing to this invocation's log, with these bindings (cluster, vm, event…). */
export function invocationLogger(
  context: Pick<InvocationContext, "trace" | "debug" | "info" | "warn" | "error">,
  bindings: LogFields = {},
): Logger {
  return createLogger({ sink: invocationSink(context), level: "trace", bindings });
}
