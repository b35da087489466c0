import {
  addSecrets,
  clearSecrets,
  createLogger,
  jsonLine,
  type LogRecord,
  REDACTED,
  silentLogger,
  textLine,
} from "@quiesce/protocol";
import { afterEach, describe, expect, it } from "vitest";

afterEach(() => clearSecrets());

/** A logger whose records land in an array, at a fixed time. */
function captured(level: Parameters<typeof createLogger>[0]["level"] = "trace") {
  const records: LogRecord[] = [];
  const log = createLogger({ level, sink: (r) => records.push(r), now: () => 0 });
  return { log, records };
}

describe("logger: levels chosen by the caller", () => {
  it("writes each method at its own level and drops those below the logger's", () => {
    const { log, records } = captured("warn");
    log.trace("t");
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    log.fatal("f");
    expect(records.map((r) => [r.level, r.msg])).toEqual([
      ["warn", "w"],
      ["error", "e"],
      ["fatal", "f"],
    ]);
    expect([log.isLevelEnabled("info"), log.isLevelEnabled("error")]).toEqual([false, true]);
  });

  it("defaults to info, and a child keeps its parent's level", () => {
    const records: LogRecord[] = [];
    const log = createLogger({ sink: (r) => records.push(r) });
    const child = log.child({ cluster: "prod" });
    child.debug("hidden");
    child.info("shown");
    expect(child.level).toBe("info");
    expect(records.map((r) => r.msg)).toEqual(["shown"]);
  });
});

describe("logger: child bindings", () => {
  it("merges bindings outermost first, and a call's fields win over them", () => {
    const { log, records } = captured();
    log
      .child({ cluster: "prod", vm: "vm-0" })
      .child({ event: "E1", vm: "vm-1" })
      .warn("drain failed", { event: "E2", attempt: 2 });
    expect(records[0]?.fields).toEqual({ cluster: "prod", vm: "vm-1", event: "E2", attempt: 2 });
  });

  it("leaves the parent's records without the child's bindings", () => {
    const { log, records } = captured();
    log.child({ cluster: "prod" });
    log.info("parent");
    expect(records[0]?.fields).toEqual({});
  });
});

describe("logger: what reaches a sink", () => {
  it("redacts a known secret from the message, the fields and the bindings", () => {
    const canary = `CANARY-SECRET-${Math.random().toString(36).slice(2)}`;
    addSecrets([canary]);
    const { log, records } = captured();
    log
      .child({ url: `https://hook.example/drain?x=${canary}` })
      .error(`hook said ${canary}`, { detail: [{ body: canary }], error: new Error(canary) });
    const written = JSON.stringify(records);
    expect(written).not.toContain(canary);
    expect(records[0]?.msg).toBe(`hook said ${REDACTED}`);
    expect(records[0]?.fields.error).toBe(`Error: ${REDACTED}`);
  });

  it("redacts secret shapes it was never told about", () => {
    const { log, records } = captured();
    log.warn("ARM said no", { header: "Authorization: Bearer abc.def-ghi" });
    expect(records[0]?.fields.header).toBe(`Authorization: Bearer ${REDACTED}`);
  });

  it("writes an error as its text with its cause, drops undefined, and keeps its own keys", () => {
    const { log, records } = captured();
    const e = new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") });
    log.error("call failed", { error: e, skipped: undefined, msg: "mine", level: 3 });
    expect(records[0]).toEqual({
      time: 0,
      level: "error",
      msg: "call failed",
      fields: {
        error: "TypeError: fetch failed (ECONNREFUSED)",
        "field.msg": "mine",
        "field.level": 3,
      },
    });
  });

  it("never throws into the caller when its sink does", () => {
    const log = createLogger({
      sink: () => {
        throw new Error("EPIPE");
      },
    });
    expect(() => log.error("still fine")).not.toThrow();
  });

  it("has a silent logger that writes nothing, whatever its children", () => {
    expect(silentLogger.child({ a: 1 })).toBe(silentLogger);
    expect(silentLogger.isLevelEnabled("fatal")).toBe(false);
  });
});

describe("formats", () => {
  const record: LogRecord = {
    time: Date.UTC(2026, 0, 2, 3, 4, 5),
    level: "warn",
    msg: "report failed; polling and hooks continue",
    fields: { vm: "vm-0", failures: 3, error: 'HTTP 503 "busy"' },
  };

  it("writes the relay's JSON line: time, level and msg first, then the fields", () => {
    expect(jsonLine(record)).toBe(
      '{"time":"2026-01-02T03:04:05.000Z","level":"warn","msg":"report failed; polling and hooks continue","vm":"vm-0","failures":3,"error":"HTTP 503 \\"busy\\""}\n',
    );
  });

  it("still writes a line for a field it cannot serialise", () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    const line = JSON.parse(jsonLine({ ...record, fields: { loop, big: 1n } }));
    expect(line).toMatchObject({ level: "warn", msg: record.msg });
    expect(line.unserializable).toMatch(/circular/i);
    expect(JSON.parse(jsonLine({ ...record, fields: { big: 10n } })).big).toBe("10");
  });

  it("writes readable text with the fields as logfmt, quoting what needs it", () => {
    expect(textLine(record)).toBe(
      'report failed; polling and hooks continue | vm=vm-0 failures=3 error="HTTP 503 \\"busy\\""',
    );
    expect(textLine({ msg: "alone", fields: {} })).toBe("alone");
    expect(textLine({ msg: "m", fields: { events: ["E1", "E2"], empty: "" } })).toBe(
      'm | events="[\\"E1\\",\\"E2\\"]" empty=""',
    );
  });
});
