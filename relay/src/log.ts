import { fstatSync } from "node:fs";
import {
  createLogger,
  jsonLine,
  jsonSink,
  type LogFields,
  type Logger,
  type LogLevel,
  type LogMethod,
  type LogSink,
  redact,
  redactDeep,
} from "@quiesce/protocol";

/**
 * The relay's logs: @quiesce/protocol's logger (the coordinator's too), as JSON lines, one per
 * record. Where each line goes depends on who reads it (logRoute, docs/relay.md "Logs"): journald
 * gets every line with its syslog priority in front, a container runtime or a terminal gets the
 * error records on stderr, the Windows start-up task's wrapper gets them all on stdout. Every
 * record is redacted by the logger itself (@quiesce/protocol's redact): error texts carry what
 * servers and hooks wrote.
 */
export { errorText, type Logger, silentLogger } from "@quiesce/protocol";

export type LogStream = "stdout" | "stderr";

/**
 * - `journal`: systemd connected this stream to journald. Every line goes there, prefixed with
 *   its syslog priority (`<3>` for an error, sd-daemon(3)), which journald strips and keeps as the
 *   entry's PRIORITY (SyslogLevelPrefix=, on by default): `journalctl -p err` finds the errors,
 *   `-o cat` shows the JSON line as written. One stream keeps the lines in order.
 * - `split`: a container runtime or a terminal. No prefix (nobody would strip it); error and
 *   fatal records on stderr, the rest on stdout: `kubectl logs` shows both, and the runtime's log
 *   tags each line with its stream for log agents (Container Insights' LogSource).
 * - `stdout`: Windows. run-relay.ps1 merges both streams into one file, where the stream is lost
 *   anyway, and Windows PowerShell turns a native program's stderr lines into error records.
 */
export type LogRoute = { to: "journal"; stream: LogStream } | { to: "split" } | { to: "stdout" };

/** How the process's own streams are found: the platform, JOURNAL_STREAM, each fd's identity. */
export interface ProcessOutput {
  platform: NodeJS.Platform;
  /** systemd.exec(5): `<device>:<inode>` of the journal stream, set by systemd. */
  journalStream: string | undefined;
  /** `<device>:<inode>` of fd 1 or 2 as fstat sees it; undefined when it cannot be read. */
  streamId: (stream: LogStream) => string | undefined;
}

/**
 * Where the relay's lines go (LogRoute). JOURNAL_STREAM alone is not enough (systemd.exec(5)):
 * a program started from a service inherits it with its output sent elsewhere (an operator's
 * `quiesce-relay --check-config` from a shell under a service), so the stream must be the one
 * systemd named. Both normally are the same socket; stdout is then preferred.
 */
export function logRoute(o: ProcessOutput): LogRoute {
  const journal = (["stdout", "stderr"] as const).find((s) => isJournal(o, s));
  if (journal) return { to: "journal", stream: journal };
  return o.platform === "win32" ? { to: "stdout" } : { to: "split" };
}

const isJournal = (o: ProcessOutput, s: LogStream) =>
  o.journalStream !== undefined && o.journalStream !== "" && o.streamId(s) === o.journalStream;

/** sd-daemon(3)'s SD_CRIT, SD_ERR, SD_WARNING, SD_INFO, SD_DEBUG for each level. */
export const SYSLOG_PRIORITY: Readonly<Record<LogLevel, number>> = {
  fatal: 2,
  error: 3,
  warn: 4,
  info: 6,
  debug: 7,
  trace: 7,
};

/** Writes each record as a JSON line to the stream, in the form, that `route` says. */
export function routedSink(
  route: LogRoute,
  write: (stream: LogStream, text: string) => void,
): LogSink {
  return (r) => {
    const line = jsonLine(r);
    if (route.to === "journal") write(route.stream, `<${SYSLOG_PRIORITY[r.level]}>${line}`);
    else if (route.to === "split" && (r.level === "error" || r.level === "fatal"))
      write("stderr", line);
    else write("stdout", line);
  };
}

const FD: Record<LogStream, number> = { stdout: 1, stderr: 2 };

/** This process's output as it is now. */
export function processOutput(): ProcessOutput {
  return {
    platform: process.platform,
    journalStream: process.env.JOURNAL_STREAM,
    streamId: (s) => {
      try {
        const st = fstatSync(FD[s], { bigint: true });
        return `${st.dev}:${st.ino}`;
      } catch {
        return undefined;
      }
    },
  };
}

const processWrite = (stream: LogStream, text: string) => {
  process[stream].write(text);
};

/**
 * `{"time":"<ISO>","level":"info","msg":"…",…base,…fields}` lines: through `write` when given
 * (all of them, unprefixed), else to this process's streams as logRoute says.
 */
export function jsonLogger(
  level: LogLevel,
  write?: (line: string) => void,
  base: LogFields = {},
  now: () => number = Date.now,
): Logger {
  const sink = write ? jsonSink(write) : routedSink(logRoute(processOutput()), processWrite);
  return createLogger({ sink, level, bindings: base, now });
}

/**
 * A message that ends the process (invalid settings, a fatal error) on stderr, each line prefixed
 * `<3>` when stderr is the journal, so `journalctl -p err` shows why the service stopped.
 */
export function writeFatal(text: string, o: ProcessOutput = processOutput()): void {
  process.stderr.write(isJournal(o, "stderr") ? text.replace(/^(?=.)/gm, "<3>") : text);
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
