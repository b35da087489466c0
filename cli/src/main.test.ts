import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bundleCli } from "../scripts/bundle.mjs";
import { ADVISORY_EVENT } from "./testFixtures";

/**
 * The `quiesce` command as operators run it: the published layout (bin/quiesce.js and the bundle
 * it runs), a real process, against real loopback HTTP servers that answer, fail or are absent.
 * What scripts rely on: stdout holds the answer alone, stderr names the URL and the cause and
 * never the key, and the exit status says which kind of failure it was.
 */

const KEY = "operator-key-0123456789abcdef";
const cliDir = join(__dirname, "..");
let dir = "";
let bin = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "quiesce-cli-"));
  await mkdir(join(dir, "bin"));
  bin = join(dir, "bin", "quiesce.js");
  await copyFile(join(cliDir, "bin", "quiesce.js"), bin);
  await bundleCli(join(dir, "dist", "quiesce.cjs"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its exit (asynchronously: the servers answer from this process). */
function quiesce(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? "", QUIESCE_OPERATOR_KEY: KEY, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A loopback server answering with `handler`; the requests it saw are kept. */
async function coordinator(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: { url: string; authorization: string | undefined }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  servers.push({ close });
  return { url, seen, close };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const STATUS = {
  now: "2026-11-23T04:46:06.691Z",
  clusters: [{ cluster: "web", memberCount: 2, liveMembers: 2, activeEventCount: 0, groups: [] }],
  events: [],
  continuation: null,
};

describe("quiesce against a coordinator", () => {
  it("prints the API's JSON alone on stdout with --json, having sent the key as a bearer token", async () => {
    const c = await coordinator((_req, res) => json(res, 200, STATUS));
    const r = await quiesce(["status", "--json", "--cluster", "web"], { QUIESCE_URL: c.url });
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(JSON.parse(r.stdout)).toEqual(STATUS);
    expect(c.seen).toEqual([{ url: "/api/status?cluster=web", authorization: `Bearer ${KEY}` }]);
  });

  it("exits 1 naming the URL and the refused connection when nothing listens", async () => {
    const c = await coordinator(() => undefined);
    await c.close(); // the port was just ours: nothing listens on it now
    const r = await quiesce(["status", "--json", "--url", c.url]);
    expect(r).toEqual({
      status: 1,
      stdout: "",
      stderr: `quiesce: cannot reach the coordinator at ${c.url}/api/status: connection refused (ECONNREFUSED)\n`,
    });
  });

  it("exits 1 naming the URL when the connection closes before an answer", async () => {
    const c = await coordinator((req) => req.socket.destroy());
    const r = await quiesce(["event", "E1", "--url", c.url]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `quiesce: cannot reach the coordinator at ${c.url}/api/events/E1: the connection was closed before an answer (UND_ERR_SOCKET)\n`,
    );
  });

  it("exits 1 naming the status, the URL and the coordinator's own message on a 500", async () => {
    const c = await coordinator((_req, res) =>
      json(res, 500, { error: "table storage unavailable" }),
    );
    const r = await quiesce(["cluster", "web", "--json", "--url", c.url]);
    expect(r).toEqual({
      status: 1,
      stdout: "",
      stderr: `quiesce: the coordinator answered GET ${c.url}/api/clusters/web with HTTP 500 Internal Server Error: table storage unavailable\n`,
    });
  });

  it("never prints the key, even when the coordinator echoes it back in a refusal", async () => {
    const c = await coordinator((req, res) => {
      res.writeHead(401, { "content-type": "text/plain" });
      res.end(`no such key ${KEY}; you sent authorization: ${req.headers.authorization}`);
    });
    const r = await quiesce(["hold", "E1", "--reason", "freeze", "--url", c.url]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toContain(KEY);
    expect(r.stderr).toMatch(
      new RegExp(
        `^quiesce: the coordinator answered POST ${c.url}/api/events/E1/hold with HTTP 401 Unauthorized: no such key \\[REDACTED\\];`,
      ),
    );
    // The refusal says where the key came from, without the key.
    expect(r.stderr).toMatch(
      /\(check the credential: --key, QUIESCE_OPERATOR_KEY or QUIESCE_TOKEN\)\n$/,
    );
  });

  it("exits 1 on an answer that is not the status API's, naming the URL", async () => {
    const c = await coordinator((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>a login page</html>");
    });
    const r = await quiesce(["status", "--url", c.url]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`^quiesce: unreadable answer to GET ${c.url}/api/status `));
  });
});

describe("quiesce and an advisory event (a Spot rebalance recommendation)", () => {
  const rebalance = { ...ADVISORY_EVENT, eventId: "E1" };
  const page = { ...STATUS, events: [rebalance] };

  it("keeps advisory in --json and marks the event advisory in text", async () => {
    const c = await coordinator((_req, res) => json(res, 200, page));
    const asJson = await quiesce(["status", "--json", "--url", c.url]);
    expect(asJson).toMatchObject({ status: 0, stderr: "" });
    expect(JSON.parse(asJson.stdout).events[0]).toEqual(rebalance);
    const asText = await quiesce(["status", "--url", c.url]);
    expect(asText.stdout).toContain(
      "  web: E1 SpotRebalanceRecommendation (advisory) [web-0] Observed: advisory:",
    );
  });

  it("exits 1 with the coordinator's refusal of a hold, which names why", async () => {
    const why =
      "event E1 is a SpotRebalanceRecommendation: advisory, there is nothing to approve or hold (a hold would change nothing)";
    const c = await coordinator((_req, res) => json(res, 409, { error: why }));
    const r = await quiesce(["hold", "E1", "--reason", "freeze", "--url", c.url]);
    expect(r).toEqual({
      status: 1,
      stdout: "",
      stderr: `quiesce: the coordinator answered POST ${c.url}/api/events/E1/hold with HTTP 409 Conflict: ${why}\n`,
    });
  });
});

describe("quiesce usage", () => {
  it("exits 2 on an unknown option, with the error and a usage line on stderr only", async () => {
    const r = await quiesce(["status", "--colour"]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^quiesce: unknown option --colour\nusage: quiesce \[status\|/);
  });

  it("exits 2 without a credential, before any request", async () => {
    const c = await coordinator((_req, res) => json(res, 200, STATUS));
    const r = await quiesce(["status", "--url", c.url], { QUIESCE_OPERATOR_KEY: "" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^quiesce: key: no credential/);
    expect(c.seen).toEqual([]);
  });

  it("prints the help, exit codes included, on stdout and exits 0 for --help and -h", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await quiesce([flag]);
      expect(r).toMatchObject({ status: 0, stderr: "" });
      expect(r.stdout).toMatch(/^quiesce: /);
      expect(r.stdout).toContain("exit status:\n  0  done\n  1  the coordinator");
    }
  });

  it("prints package.json's version for --version and -v", async () => {
    const { version } = JSON.parse(await readFile(join(cliDir, "package.json"), "utf8"));
    for (const flag of ["--version", "-v"])
      expect(await quiesce([flag])).toEqual({ status: 0, stdout: `${version}\n`, stderr: "" });
  });
});
