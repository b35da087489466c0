import { redact, redactDeep } from "../redact";

/**
 * One structured logger for the relay and the coordinator, modelled on pino: levels trace to
 * fatal chosen by the caller, `child(bindings)` for what a call site knows (cluster, vm, event),
 * and a sink, passed in, that decides where a record goes (JSON lines on stdout for the relay,
 * the Functions invocation's log for the coordinator). No I/O here: the protocol stays free of
 * it. Every record is redacted before any sink sees it ("secrets never leave", docs/security.md),
 * so no sink, ours or a caller's, can forget to.
 */

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** pino's numbers, so a reader who knows pino reads ours the same way. */
export const LOG_LEVEL_RANK: Readonly<Record<LogLevel, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};

export type LogFields = Readonly<Record<string, unknown>>;

/** What a sink receives: already filtered by level and redacted. */
export interface LogRecord {
  /** Epoch milliseconds. */
  time: number;
  level: LogLevel;
  msg: string;
  /** The bindings (outermost first), then the call's fields; never time, level or msg. */
  fields: LogFields;
}

export type LogSink = (record: LogRecord) => void;

export type LogMethod = (msg: string, fields?: LogFields) => void;

export interface Logger {
  /** Records below this level are dropped before any work is done on them. */
  readonly level: LogLevel;
  trace: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  fatal: LogMethod;
  /** The same sink and level, these bindings added to every record (a call's fields win). */
  child(bindings: LogFields): Logger;
  isLevelEnabled(level: LogLevel): boolean;
}

/** The names a record's own keys take: a field of the same name would hide them. */
const RESERVED = new Set(["time", "level", "msg"]);

export interface LoggerOptions {
  sink: LogSink;
  /** Default "info". */
  level?: LogLevel;
  bindings?: LogFields;
  now?: () => number;
}

export function createLogger(o: LoggerOptions): Logger {
  const level = o.level ?? "info";
  const min = LOG_LEVEL_RANK[level];
  const bindings = o.bindings ?? {};
  const now = o.now ?? Date.now;
  const emit =
    (lvl: LogLevel): LogMethod =>
    (msg, fields) => {
      if (LOG_LEVEL_RANK[lvl] < min) return;
      const record: LogRecord = {
        time: now(),
        level: lvl,
        msg: redact(msg),
        fields: redactDeep(plain({ ...bindings, ...fields })),
      };
      try {
        o.sink(record);
      } catch {
        // A log line must never fail the work it describes (a closed pipe, a finished
        // invocation): the record is lost, the work goes on.
      }
    };
  return {
    level,
    trace: emit("trace"),
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    fatal: emit("fatal"),
    child: (more) => createLogger({ ...o, level, bindings: { ...bindings, ...more } }),
    isLevelEnabled: (l) => LOG_LEVEL_RANK[l] >= min,
  };
}

/**
 * Fields as JSON-ready, redactable values: an Error becomes its text (redactDeep leaves class
 * instances alone, and JSON.stringify would write `{}`), reserved names are renamed.
 */
function plain(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    out[RESERVED.has(k) ? `field.${k}` : k] = v instanceof Error ? errorText(v) : v;
  }
  return out;
}

const nothing: LogMethod = () => {};

export const silentLogger: Logger = {
  level: "fatal",
  trace: nothing,
  debug: nothing,
  info: nothing,
  warn: nothing,
  error: nothing,
  fatal: nothing,
  child: () => silentLogger,
  isLevelEnabled: () => false,
};

/** An error as one line: name, message and the message of its cause. */
export const errorText = (e: unknown): string =>
  e instanceof Error ? `${e.name}: ${e.message}${causeText(e)}` : String(e);

const causeText = (e: Error): string => {
  const cause = (e as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (${cause.message})` : "";
};
