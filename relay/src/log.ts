import {
  createLogger,
  jsonSink,
  type LogFields,
  type Logger,
  type LogLevel,
  type LogMethod,
  redact,
  redactDeep,
} from "@quiesce/protocol";

/**
 * The relay's logs: @quiesce/protocol's logger (the coordinator's too), as JSON lines, one per
 * record, on stdout. journald (Linux) and the Windows start-up task's wrapper (which appends them
 * to a log file) pick them up as they are. Every record is redacted by the logger itself
 * (@quiesce/protocol's redact): error texts carry what servers and hooks wrote.
 */
export { errorText, type Logger, silentLogger } from "@quiesce/protocol";

/** `{"time":"<ISO>","level":"info","msg":"…",…base,…fields}` lines through `write`. */
export function jsonLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line),
  base: LogFields = {},
  now: () => number = Date.now,
): Logger {
  return createLogger({ sink: jsonSink(write), level, bindings: base, now });
}

/**
 * Any logger, redacted: a caller of startRelay may hand in a logger of its own making, and what
 * the relay's loops log passes through this whatever it is (ours redact already).
 */
export function redactingLogger(l: Logger): Logger {
  const wrap =
    (m: LogLevel): LogMethod =>
    (msg, fields) =>
      l[m](redact(msg), fields && redactDeep(fields));
  return {
    level: l.level,
    trace: wrap("trace"),
    debug: wrap("debug"),
    info: wrap("info"),
    warn: wrap("warn"),
    error: wrap("error"),
    fatal: wrap("fatal"),
    child: (bindings) => redactingLogger(l.child(redactDeep(bindings))),
    isLevelEnabled: (lvl) => l.isLevelEnabled(lvl),
  };
}
