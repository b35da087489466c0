import { type LogLevel as HostLevel, InvocationContext } from "@azure/functions";
import { addSecrets, clearSecrets } from "@quiesce/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { appLogger, invocationLogger, processSink } from ".";

afterEach(() => clearSecrets());

/** An invocation whose log lines (as the host would receive them) land in an array. */
function invocation() {
  const lines: Array<[HostLevel, string]> = [];
  const context = new InvocationContext({
    logHandler: (level, ...args) => lines.push([level, args.map(String).join(" ")]),
  });
  return { context, lines };
}

describe("the coordinator's invocation sink", () => {
  it("maps each level to the host's, fatal to error, with the bindings as logfmt", () => {
    const { context, lines } = invocation();
    const log = invocationLogger(context, { cluster: "prod" }).child({ event: "E1" });
    log.trace("t");
    log.debug("d");
    log.info("i");
    log.warn("w", { vm: "vm 0" });
    log.error("e");
    log.fatal("f");
    expect(lines).toEqual([
      ["trace", "t | cluster=prod event=E1"],
      ["debug", "d | cluster=prod event=E1"],
      ["information", "i | cluster=prod event=E1"],
      ["warning", 'w | cluster=prod event=E1 vm="vm 0"'],
      ["error", "e | cluster=prod event=E1"],
      ["error", "f | cluster=prod event=E1"],
    ]);
  });

  it("passes no secret to the host's log", () => {
    const canary = `CANARY-SECRET-${Math.random().toString(36).slice(2)}`;
    addSecrets([canary]);
    const { context, lines } = invocation();
    invocationLogger(context, { url: `https://x.example/${canary}` }).error(canary);
    expect(JSON.stringify(lines)).not.toContain(canary);
  });
});

describe("the coordinator's app-level sink", () => {
  it("writes JSON lines, to stderr from error up", () => {
    const out: string[] = [];
    const err: string[] = [];
    const log = appLogger(
      "info",
      processSink(
        (l) => out.push(l),
        (l) => err.push(l),
      ),
    ).child({ cluster: "prod" });
    log.debug("hidden");
    log.info("follow-up done");
    log.error("control plane: agentless work failed", { error: new Error("ARM 500") });
    expect(out.map((l) => JSON.parse(l))).toEqual([
      { time: expect.any(String), level: "info", msg: "follow-up done", cluster: "prod" },
    ]);
    expect(err.map((l) => JSON.parse(l))).toEqual([
      {
        time: expect.any(String),
        level: "error",
        msg: "control plane: agentless work failed",
        cluster: "prod",
        error: "Error: ARM 500",
      },
    ]);
  });
});
