import type { LogFields, LogRecord, LogSink } from "./logger";

/**
 * A record as one JSON line: `{"time":"<ISO>","level":"info","msg":"…",…fields}` and a newline.
 * The relay's format since its first release (journald and the Windows task's log file keep it;
 * docs/relay.md): a label and an ISO time where pino writes numbers, for operators reading it raw.
 */
export function jsonLine(r: LogRecord): string {
  const head = { time: new Date(r.time).toISOString(), level: r.level, msg: r.msg };
  try {
    return `${JSON.stringify({ ...head, ...r.fields }, bigints)}\n`;
  } catch (e) {
    // A circular field: the line still says what happened, without the fields.
    return `${JSON.stringify({ ...head, unserializable: (e as Error).message })}\n`;
  }
}

const bigints = (_k: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);

/** Writes each record as a JSON line (jsonLine) through `write`. */
export const jsonSink =
  (write: (line: string) => void): LogSink =>
  (r) =>
    write(jsonLine(r));

/**
 * A record as readable text for a host that keeps its own time and level (the Functions
 * invocation log): the message, then ` | ` and the fields as logfmt, `cluster=prod vm=vm-1
 * error="ARM: 429"`, which Kusto's parse-kv reads back into columns.
 */
export function textLine(r: Pick<LogRecord, "msg" | "fields">): string {
  const kv = logfmt(r.fields);
  return kv ? `${r.msg} | ${kv}` : r.msg;
}

export function logfmt(fields: LogFields): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(" ");
}

function value(v: unknown): string {
  const text = typeof v === "string" ? v : safeJson(v);
  return /^[^\s"=|]+$/.test(text) ? text : JSON.stringify(text);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, bigints) ?? String(v);
  } catch {
    return String(v);
  }
}
