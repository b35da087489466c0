import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TimelineEntry } from "@quiesce/fabric-simulator";
import { textLine } from "@quiesce/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openDemoLog, renderTally } from "./demoLog";
import { scopeName, timelineLine } from "./narrate";

const at = { simMs: 0, realMs: 0 };
const nameOf = (id: string) => (id === "E1" ? "relays lost" : id);

describe("timeline narration", () => {
  it("shows an acknowledge through Azure Resource Manager with its scope and caller", () => {
    const e: TimelineEntry = {
      seq: 1,
      kind: "armAcknowledge",
      scope:
        "/subscriptions/s/resourceGroups/RG/providers/Microsoft.Compute/availabilitySets/AVSET-DB",
      principalId: "512b7a99-e86c-53e6-8d7a-3b4c39df8604",
      eventIds: ["E1"],
      outcomes: [{ eventId: "E1", outcome: "approved" }],
      at,
    };
    expect(timelineLine(e, nameOf)).toBe(
      "Azure  ← ARM acknowledge on availabilitySets/AVSET-DB from the coordinator's identity 512b7a99… (relays lost: approved)",
    );
  });

  it("shows StartRequests and document changes with a reason, nothing else", () => {
    expect(
      timelineLine(
        {
          seq: 2,
          kind: "startRequests",
          vm: "web-1",
          group: "g",
          eventIds: ["E1"],
          outcomes: [{ eventId: "E1", outcome: "approved" }],
          at,
        },
        nameOf,
      ),
    ).toBe("Azure  ← StartRequests from web-1 (relays lost: approved)");
    expect(
      timelineLine({ seq: 3, kind: "faultServed", detail: "HTTP 500", at }, nameOf),
    ).toBeNull();
    expect(scopeName("x")).toBe("x");
  });
});

describe("the narrative tells the story; log records go to the log", () => {
  const dirs: string[] = [];
  const logIn = () => {
    const dir = mkdtempSync(join(tmpdir(), "quiesce-demo-log-"));
    dirs.push(dir);
    return openDemoLog(join(dir, "demo.log"));
  };
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const FETCHED = {
    msg: "aia: fetched",
    fields: { url: "http://127.0.0.1:1/pkiops/certs/ca.crt", subjects: ["CN=Test CA"] },
  };

  it("writes the coordinator's record as one formatted line, its fields as logfmt, never an object", () => {
    const log = logIn();
    log.write("coordinator", "information", textLine(FETCHED));
    log.close();
    expect(readFileSync(log.path, "utf8")).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z info {2}coordinator: aia: fetched \| url=http:\/\/127\.0\.0\.1:1\/pkiops\/certs\/ca\.crt subjects="\[\\"CN=Test CA\\"\]"\n$/,
    );
  });

  it("sends what a library prints with console to the log, formatted on one line, not to the narrative", () => {
    const log = logIn();
    const stdout = vi.spyOn(process.stdout, "write");
    const original = console.log;
    const restore = log.captureConsole();
    console.log(FETCHED.msg, FETCHED.fields);
    console.error(new Error("boom"));
    restore();
    log.close();
    expect(stdout).not.toHaveBeenCalled();
    const lines = readFileSync(log.path, "utf8").split("\n");
    expect(lines[0]).toMatch(
      /info {2}console: aia: fetched \{ url: 'http:\/\/127\.0\.0\.1:1\/pkiops\/certs\/ca\.crt', subjects: \[ 'CN=Test CA' \] \}$/,
    );
    expect(lines[1]).toMatch(/error console: Error: boom$/);
    expect(lines[2]).toMatch(/^ {4,}at /); // the stack indented under its record
    expect(console.log).toBe(original);
  });

  it("counts warnings and errors, and names them in the narrative's closing lines", () => {
    const log = logIn();
    log.write("coordinator", "debug", "dropped below info");
    log.write("coordinator", "warning", "aia: fetch failed | url=x");
    log.write("coordinator", "warn", "aia: fetch failed | url=y");
    log.relayLogger("db-0", "warn").error("report failed", { status: 503 });
    log.relayLogger("db-0", "warn").info("below the relays' level");
    log.close();
    const tally = log.tally();
    expect(tally).toMatchObject({ warnings: 2, errors: 1 });
    expect(renderTally(".quiesce/demo.log", tally)).toEqual([
      "Log: .quiesce/demo.log (coordinator, relays, anything else printed): 2 warning(s), 1 error(s)",
      "  warn  ×2   coordinator: aia: fetch failed",
      "  error ×1   relay db-0: report failed",
    ]);
    expect(readFileSync(log.path, "utf8")).not.toContain("dropped below info");
    expect(renderTally("l", { warnings: 0, errors: 0, top: [] })).toEqual([
      "Log: l (coordinator, relays, anything else printed): 0 warning(s), 0 error(s)",
    ]);
  });
});
