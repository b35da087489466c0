import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRelaySettings } from "../../src/config";
import { OUTPUT_LIMIT_BYTES } from "../../src/hooks/outcome";
import type { HookPayload } from "../../src/hooks/payload";
import { hookRunner } from "../../src/hooks/runner";
import { relayConfigFrom } from "../../src/options";
import { tempDir, waitFor } from "../support/wait";

/** The hooks' targets, as start-up builds them from the settings. */
const targets = (settings: Record<string, unknown>) =>
  relayConfigFrom(parseRelaySettings(settings)).hooks;

const payload: HookPayload = {
  hook: "drain",
  attempt: 1,
  deadline: "2026-01-01T00:10:00.000Z",
  dryRun: false,
  vm: { name: "vm-0", vmId: "id", resourceId: "/subscriptions/s/rg/vm-0" },
  event: {
    EventId: "E1",
    EventType: "Freeze",
    Resources: ["vm-0", "vm-1"],
    EventStatus: "Scheduled",
    NotBefore: "Mon, 11 Apr 2022 22:26:58 GMT",
    DurationInSeconds: 5,
  },
};
const base = {
  QUIESCE_COORDINATOR_URL: "http://127.0.0.1:1",
  QUIESCE_CLUSTER: "c",
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "0123456789abcdef",
};

describe("hook runner", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await dir.remove();
  });

  it("runs the command through sh with the event in env variables and as JSON on stdin", async () => {
    const cmd = `printf '%s %s %s %s' "$QUIESCE_HOOK" "$QUIESCE_EVENT_ID" "$QUIESCE_EVENT_RESOURCES" "$QUIESCE_EVENT_DURATION_SECONDS" > ${dir.path}/env; cat > ${dir.path}/stdin; [ -z "$QUIESCE_RELAY_KEY" ] && echo drained`;
    const run = hookRunner(targets({ ...base, QUIESCE_DRAIN_COMMAND: cmd }));
    const out = await run(payload, 5_000, new AbortController().signal);
    expect(out).toMatchObject({ result: "succeeded", detail: "exit 0: drained" });
    expect(await readFile(join(dir.path, "env"), "utf8")).toBe("drain E1 vm-0,vm-1 5");
    expect(JSON.parse(await readFile(join(dir.path, "stdin"), "utf8"))).toEqual(payload);
  });

  it("runs the hook for an event whose text holds NUL or shell syntax: never interpolated, NUL replaced in env", async () => {
    const cmd = `printf '%s' "$QUIESCE_EVENT_ID" > ${dir.path}/id; cat > ${dir.path}/stdin`;
    const run = hookRunner(targets({ ...base, QUIESCE_DRAIN_COMMAND: cmd }));
    const odd = { ...payload, event: { ...payload.event, EventId: "E\u0000$(touch pwned);`id`" } };
    const out = await run(odd, 5_000, new AbortController().signal);
    expect(out.result).toBe("succeeded");
    expect(await readFile(join(dir.path, "id"), "utf8")).toBe("E\ufffd$(touch pwned);`id`");
    expect(JSON.parse(await readFile(join(dir.path, "stdin"), "utf8")).event.EventId).toBe(
      odd.event.EventId,
    );
  });

  it("records a non-zero exit as failed with the last output line", async () => {
    const run = hookRunner(
      targets({
        ...base,
        QUIESCE_DRAIN_COMMAND: "echo 'load balancer refused'; exit 3",
      }),
    );
    expect(await run(payload, 5_000, new AbortController().signal)).toMatchObject({
      result: "failed",
      detail: "exit 3: load balancer refused",
    });
  });

  it("kills a hook (and what it started) at its timeout", async () => {
    const run = hookRunner(
      targets({
        ...base,
        QUIESCE_DRAIN_COMMAND: `sleep 30 & echo $! > ${dir.path}/child; wait`,
      }),
    );
    const started = performance.now();
    const out = await run(payload, 300, new AbortController().signal);
    expect(out.result).toBe("failed");
    expect(out.detail).toMatch(/^timed out/);
    expect(performance.now() - started).toBeLessThan(5_000);
    const child = Number(await readFile(join(dir.path, "child"), "utf8"));
    await waitFor("the hook's child process to end", () => !alive(child), 3_000);
  });

  it("keeps only the tail of a hook's output", async () => {
    const run = hookRunner(
      targets({
        ...base,
        QUIESCE_DRAIN_COMMAND: `head -c ${OUTPUT_LIMIT_BYTES * 4} /dev/zero | tr '\\0' x; echo; echo last`,
      }),
    );
    const out = await run(payload, 5_000, new AbortController().signal);
    expect(out.output.length).toBeLessThan(OUTPUT_LIMIT_BYTES + 100);
    expect(out.output).toMatch(/earlier bytes dropped/);
    expect(out.detail).toBe("exit 0: last");
  });

  it("reports a hook stopped by shutdown as interrupted", async () => {
    const run = hookRunner(targets({ ...base, QUIESCE_DRAIN_COMMAND: "sleep 30" }));
    const stop = new AbortController();
    const pending = run(payload, 60_000, stop.signal);
    setTimeout(() => stop.abort(), 100);
    expect((await pending).result).toBe("interrupted");
  });

  it("succeeds at once when no hook is configured", async () => {
    const run = hookRunner(targets(base));
    expect(await run(payload, 1_000, new AbortController().signal)).toMatchObject({
      result: "succeeded",
      detail: "no drain hook configured",
    });
  });

  describe("HTTP hook", () => {
    let server: Server;
    let url = "";
    const bodies: unknown[] = [];
    let status = 200;
    beforeEach(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          if (req.url === "/slow") return; // never answers
          res.writeHead(status).end(status === 200 ? "drained" : "busy");
        });
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterEach(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    it("POSTs the event JSON and treats 2xx as done, anything else as failed", async () => {
      const run = hookRunner(targets({ ...base, QUIESCE_DRAIN_URL: `${url}/drain` }));
      expect(await run(payload, 5_000, new AbortController().signal)).toMatchObject({
        result: "succeeded",
        detail: "HTTP 200: drained",
      });
      expect(bodies.at(-1)).toEqual(payload);
      status = 503;
      expect(await run(payload, 5_000, new AbortController().signal)).toMatchObject({
        result: "failed",
        detail: "HTTP 503: busy",
      });
    });

    it("fails an endpoint that does not answer within the timeout", async () => {
      const run = hookRunner(targets({ ...base, QUIESCE_DRAIN_URL: `${url}/slow` }));
      expect(await run(payload, 300, new AbortController().signal)).toMatchObject({
        result: "failed",
        detail: "timed out after 0 s",
      });
    });
  });
});

/** Gone, or a zombie waiting for a reaper (containers often have none): either way, not running. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
