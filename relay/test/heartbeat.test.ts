import { stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { probe } from "../src/cli";
import { parseRelaySettings } from "../src/config";
import {
  Heartbeat,
  heartbeatFileFor,
  heartbeatStaleAfterMs,
  probeHeartbeat,
} from "../src/heartbeat";
import { type Harness, RELAY_KEY, scheduled, useHarness } from "./support/harness";
import { tempDir, waitFor } from "./support/wait";

/**
 * The liveness heartbeat (relay/src/heartbeat.ts): the IMDS loop keeps it fresh whatever the
 * hooks, the coordinator or IMDS are doing, and `--probe` fails once the loop has stopped.
 */
describe("relay heartbeat", () => {
  let h: Harness;
  useHarness((x) => {
    h = x;
  });

  const file = () => heartbeatFileFor(h.stateFile);
  const LIMIT = heartbeatStaleAfterMs(200);
  const longAgo = new Date(Date.now() - 2 * LIMIT);
  /**
   * Ages the heartbeat past the limit, then waits until the loop has written it again. (Not
   * checked stale in between: a loop polling every few ms may already have written it; the
   * probe's staleness has its own test below.)
   */
  const rewrittenByTheLoop = async (what: string) => {
    await utimes(file(), longAgo, longAgo);
    await waitFor(what, async () => (await probeHeartbeat(file(), LIMIT)).alive);
  };

  it("is written by every IMDS poll, and --probe passes while the loop runs", async () => {
    await h.start({}, { heartbeatEveryMs: 0 });
    await waitFor("the first heartbeat", () => stat(file()).catch(() => undefined));
    await rewrittenByTheLoop("a poll to refresh the heartbeat");
    const out: string[] = [];
    const settings = parseRelaySettings({
      QUIESCE_COORDINATOR_URL: h.coordinator.url,
      QUIESCE_CLUSTER: "test",
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: RELAY_KEY,
      QUIESCE_POLL_INTERVAL_MS: 200,
      QUIESCE_STATE_FILE: h.stateFile,
    });
    const code = await probe(settings, { out: (t) => out.push(t), err: (t) => out.push(t) });
    expect(code).toBe(0);
    expect(out.join("")).toMatch(/^quiesce-relay: alive: heartbeat \d+ s old\n$/);
  });

  it("stays fresh through a slow drain while the coordinator is down", async () => {
    const relay = await h.start(
      { QUIESCE_DRAIN_COMMAND: `echo started > ${h.dir}/drain; sleep 30` },
      { heartbeatEveryMs: 0 },
    );
    h.coordinator.down = true;
    h.imds.setEvents([scheduled("E1", ["vm-0"])]);
    await waitFor("the drain to start", () => stat(join(h.dir, "drain")).catch(() => undefined));
    await rewrittenByTheLoop("a poll during the drain and the outage");
    expect(relay.state().state.events.e1?.drain?.status).toBe("running");
  });

  it("stays fresh while IMDS fails every request", async () => {
    await h.start({}, { heartbeatEveryMs: 0, imds: { retryBudgetMs: 100, retryBaseMs: 10 } });
    await waitFor("the first heartbeat", () => stat(file()).catch(() => undefined));
    await h.morePolls(1);
    h.imds.faults = Array.from({ length: 10_000 }, () => 503);
    await rewrittenByTheLoop("a failed poll to refresh the heartbeat");
  });

  it("goes stale once the loop stops, and --probe then fails saying how old it is", async () => {
    const relay = await h.start({}, { heartbeatEveryMs: 0 });
    await waitFor("the first heartbeat", () => stat(file()).catch(() => undefined));
    await relay.stop();
    const written = (await stat(file())).mtimeMs;
    expect((await probeHeartbeat(file(), LIMIT, written + LIMIT)).alive).toBe(true);
    const stale = await probeHeartbeat(file(), LIMIT, written + LIMIT + 1_000);
    expect(stale.alive).toBe(false);
    expect(stale.text).toMatch(/^not alive: heartbeat .* \d+ s old \(limit \d+ s\)/);
  });
});

describe("probeHeartbeat and Heartbeat", () => {
  it("fails without a heartbeat file, naming the setting that places it", async () => {
    const d = await tempDir();
    try {
      const r = await probeHeartbeat(join(d.path, "state.json.heartbeat"), 60_000);
      expect(r).toEqual({ alive: false, text: expect.stringMatching(/QUIESCE_STATE_FILE$/) });
    } finally {
      await d.remove();
    }
  });

  it("takes a heartbeat from the future (the clock stepped back) as fresh", async () => {
    const d = await tempDir();
    try {
      const f = join(d.path, "hb");
      await writeFile(f, "");
      const later = new Date(Date.now() + 3_600_000);
      await utimes(f, later, later);
      expect((await probeHeartbeat(f, 60_000)).alive).toBe(true);
    } finally {
      await d.remove();
    }
  });

  it("writes at most once per interval and reports a failing write once", async () => {
    const d = await tempDir();
    try {
      const errors: string[] = [];
      const f = join(d.path, "hb");
      const hb = new Heartbeat(f, (e) => errors.push(e), 60_000);
      hb.beat();
      // Written, not only created: writeFile creates the file before it writes, and a write
      // landing after utimes below would set the time again.
      await waitFor(
        "the first write",
        async () => ((await stat(f).catch(() => null))?.size ?? 0) > 0,
      );
      await utimes(f, longAgoDate(), longAgoDate());
      hb.beat(); // within the interval: no write (stop() would wait for one under way)
      await hb.stop();
      expect((await stat(f)).mtimeMs).toBeLessThan(Date.now() - 60_000);

      const broken = new Heartbeat(join(f, "not-a-dir", "hb"), (e) => errors.push(e), 0);
      broken.beat();
      await waitFor("the first failed write", () => errors.length === 1);
      broken.beat();
      await broken.stop();
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/ENOTDIR/);
    } finally {
      await d.remove();
    }
  });
});

const longAgoDate = () => new Date(Date.now() - 3_600_000);
