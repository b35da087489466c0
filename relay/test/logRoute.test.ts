import { createLogger, type LogLevel } from "@quiesce/protocol";
import { describe, expect, it } from "vitest";
import { type LogStream, logRoute, type ProcessOutput, routedSink } from "../src/log";

/**
 * Where the relay's log lines go (relay/src/log.ts): journald gets each with its syslog priority,
 * a container runtime or a terminal gets errors on stderr, Windows gets everything on stdout.
 */

const output = (o: Partial<ProcessOutput> & { ids?: Partial<Record<LogStream, string>> }) => ({
  platform: o.platform ?? "linux",
  journalStream: o.journalStream,
  streamId: (s: LogStream) => o.ids?.[s],
});

describe("logRoute", () => {
  it("is the journal when JOURNAL_STREAM names stdout (or else stderr), stdout first", () => {
    const ids = { stdout: "9:100", stderr: "9:100" };
    expect(logRoute(output({ journalStream: "9:100", ids }))).toEqual({
      to: "journal",
      stream: "stdout",
    });
    expect(
      logRoute(output({ journalStream: "9:200", ids: { stdout: "1:5", stderr: "9:200" } })),
    ).toEqual({ to: "journal", stream: "stderr" });
  });

  it("is not the journal when JOURNAL_STREAM was inherited by a process writing elsewhere", () => {
    const ids = { stdout: "136:3", stderr: "136:3" };
    expect(logRoute(output({ journalStream: "9:100", ids }))).toEqual({ to: "split" });
    expect(logRoute(output({ journalStream: "", ids: { stdout: "", stderr: "" } }))).toEqual({
      to: "split",
    });
  });

  it("splits errors to stderr outside systemd, and keeps one stream on Windows", () => {
    expect(logRoute(output({ ids: { stdout: "1:1" } }))).toEqual({ to: "split" });
    expect(logRoute(output({ platform: "win32" }))).toEqual({ to: "stdout" });
  });
});

describe("routedSink", () => {
  const LEVELS: LogLevel[] = ["trace", "debug", "info", "warn", "error", "fatal"];
  const logLines = (route: Parameters<typeof routedSink>[0]) => {
    const lines: [LogStream, string][] = [];
    const log = createLogger({
      sink: routedSink(route, (s, t) => lines.push([s, t])),
      level: "trace",
      now: () => 0,
    });
    for (const l of LEVELS) log[l](`a ${l} record`, { n: 1 });
    return lines;
  };

  it("prefixes every line with sd-daemon's priority for journald, which strips it to JSON", () => {
    const lines = logLines({ to: "journal", stream: "stdout" });
    expect(lines.map(([s, t]) => `${s} ${t.slice(0, 3)}`)).toEqual([
      "stdout <7>",
      "stdout <7>",
      "stdout <6>",
      "stdout <4>",
      "stdout <3>",
      "stdout <2>",
    ]);
    for (const [, text] of lines) {
      const m = /^<[0-7]>(.*)\n$/.exec(text);
      expect(JSON.parse(m?.[1] ?? "")).toMatchObject({ msg: expect.stringMatching(/^a /), n: 1 });
    }
  });

  it("writes bare JSON lines elsewhere: errors and fatals on stderr when split", () => {
    const split = logLines({ to: "split" });
    expect(split.map(([s]) => s)).toEqual([
      "stdout",
      "stdout",
      "stdout",
      "stdout",
      "stderr",
      "stderr",
    ]);
    const windows = logLines({ to: "stdout" });
    expect(new Set(windows.map(([s]) => s))).toEqual(new Set(["stdout"]));
    for (const [, text] of [...split, ...windows]) expect(JSON.parse(text).n).toBe(1);
  });
});
