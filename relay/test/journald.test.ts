import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EXIT } from "../src/cliArgs";
import { buildBundle, FileOutputProcess, streamIdOf } from "./support/bundle";
import { CoordinatorStandIn } from "./support/coordinatorStandIn";
import { scheduled, standInSettings } from "./support/harness";
import { ImdsStandIn } from "./support/imdsStandIn";
import { tempDir, waitFor } from "./support/wait";

/**
 * The relay's lines as journald, a container runtime and a terminal get them (relay/src/log.ts),
 * from the shipped bundle with its output in files: with JOURNAL_STREAM naming its stdout (as
 * systemd does) each line starts with its syslog priority, which journald strips; otherwise bare
 * JSON lines, errors on stderr.
 */
describe("relay log lines, by who reads them", () => {
  let built: Awaited<ReturnType<typeof buildBundle>>;
  let imds: ImdsStandIn;
  let coordinator: CoordinatorStandIn;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let relay: FileOutputProcess | undefined;
  beforeAll(async () => {
    built = await buildBundle();
  });
  afterAll(async () => {
    await built.remove();
  });
  beforeEach(async () => {
    imds = await new ImdsStandIn("vm-0").start();
    coordinator = await new CoordinatorStandIn().start();
    coordinator.down = true; // every report fails: a warning
    dir = await tempDir();
  });
  afterEach(async () => {
    await relay?.stop(true);
    relay = undefined;
    await imds.stop();
    await coordinator.stop();
    await dir.remove();
  });

  const file = (name: string) => {
    const path = join(dir.path, name);
    closeSync(openSync(path, "a"));
    return path;
  };

  /** A relay whose drain fails (an error) while its reports fail (a warning). */
  const startFailingRelay = (journalStream: (out: string, err: string) => string | undefined) => {
    const out = file("stdout");
    const err = file("stderr");
    const stream = journalStream(out, err);
    relay = new FileOutputProcess(
      [built.bundle],
      {
        ...standInSettings({
          coordinatorUrl: coordinator.url,
          imdsUrl: imds.url,
          stateFile: join(dir.path, "state.json"),
        }),
        QUIESCE_DRAIN_COMMAND: "exit 3",
        ...(stream === undefined ? {} : { JOURNAL_STREAM: stream }),
      },
      out,
      err,
    );
    imds.setEvents([scheduled("E1", ["vm-0"])]);
    return relay;
  };
  const both = (r: FileOutputProcess) => r.stdout() + r.stderr();
  const logged = (r: FileOutputProcess) =>
    waitFor(
      "the drain's failure and a failed report",
      () =>
        both(r).includes('"msg":"drain hook failed"') && both(r).includes('"msg":"report failed'),
    );
  const lines = (text: string) => text.split("\n").filter(Boolean);

  it("under systemd: every line on stdout with its priority in front, JSON once stripped", async () => {
    const r = startFailingRelay((out) => streamIdOf(out));
    await logged(r);
    expect(r.stderr()).toBe("");
    const priorities = new Map<string, string>();
    for (const line of lines(r.stdout())) {
      const m = /^<([0-7])>(\{.*\})$/.exec(line);
      expect(m, line).not.toBeNull();
      const record = JSON.parse(m?.[2] ?? "") as { msg: string };
      priorities.set(record.msg.split(";")[0] ?? "", m?.[1] ?? "");
    }
    expect(priorities.get("relay starting")).toBe("6");
    expect(priorities.get("report failed")).toBe("4");
    expect(priorities.get("drain hook failed")).toBe("3");
  });

  it("elsewhere (a container, a terminal): bare JSON lines, errors on stderr", async () => {
    // JOURNAL_STREAM inherited from a service by a process whose output goes elsewhere.
    const r = startFailingRelay((_out, _err) => streamIdOf(file("unrelated")));
    await logged(r);
    const msgs = (text: string) => lines(text).map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs(r.stdout())).toContain("relay starting");
    expect(msgs(r.stdout())).toContain("report failed; polling and hooks continue");
    expect(msgs(r.stdout())).not.toContain("drain hook failed");
    expect(msgs(r.stderr())).toContain("drain hook failed");
    const levels = lines(r.stderr()).map((l) => (JSON.parse(l) as { level: string }).level);
    expect(new Set(levels)).toEqual(new Set(["error"]));
  });

  it(`exits ${EXIT.config} on invalid settings, the message at error priority when stderr is the journal`, () => {
    const err = file("config-error");
    const fd = openSync(err, "a");
    const run = spawnSync(process.execPath, [built.bundle], {
      env: {
        PATH: process.env.PATH ?? "",
        QUIESCE_CLUSTER: "not valid!",
        JOURNAL_STREAM: streamIdOf(err),
      },
      stdio: ["ignore", "ignore", fd],
    });
    closeSync(fd);
    expect(run.status).toBe(EXIT.config);
    const text = lines(readFileSync(err, "utf8"));
    expect(text[0]).toMatch(/^<3>quiesce-relay: .*QUIESCE_CLUSTER/);
    for (const line of text) expect(line).toMatch(/^<3>/);
  });
});
