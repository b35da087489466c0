import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { relayBuildOptions } from "../scripts/build-options.mjs";
import { RelayState } from "../src/decisions/state";
import { CoordinatorStandIn } from "./support/coordinatorStandIn";
import { RELAY_KEY, scheduled } from "./support/harness";
import { ImdsStandIn } from "./support/imdsStandIn";
import { tempDir, waitFor } from "./support/wait";

/** The CLI as shipped: bundled by esbuild into one file, run by `node`, stopped by signals. */
describe("relay CLI (single-file bundle)", () => {
  let out: Awaited<ReturnType<typeof tempDir>>;
  let bundle = "";
  beforeAll(async () => {
    out = await tempDir();
    bundle = join(out.path, "quiesce-relay.js");
    await build({ ...relayBuildOptions({ outfile: bundle }), logLevel: "error" });
  });
  afterAll(async () => {
    await out.remove();
  });

  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [bundle, ...args], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ...env },
    });

  it("prints its version and help", () => {
    expect(run(["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("QUIESCE_COORDINATOR_URL");
  });

  it("exits 2 with a message naming each bad setting, in English", () => {
    const r = run([], { QUIESCE_COORDINATOR_URL: "not a url", QUIESCE_CLUSTER: "web" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /QUIESCE_COORDINATOR_URL: not a valid URL \("not a url"\).*QUIESCE_ENTRA_AUDIENCE: required/,
    );
  });

  it("exits 2 for an unknown argument", () => {
    expect(run(["--frobnicate"]).status).toBe(2);
  });

  describe("running", () => {
    let imds: ImdsStandIn;
    let coordinator: CoordinatorStandIn;
    let dir: Awaited<ReturnType<typeof tempDir>>;
    let child: ChildProcess | undefined;
    let stdout = "";
    beforeEach(async () => {
      imds = await new ImdsStandIn("vm-0").start();
      coordinator = await new CoordinatorStandIn().start();
      dir = await tempDir();
      stdout = "";
    });
    afterEach(async () => {
      if (child && child.exitCode === null) {
        child.kill("SIGKILL");
        await new Promise((r) => child?.once("exit", r));
      }
      await imds.stop();
      await coordinator.stop();
      await dir.remove();
    });

    it("on SIGTERM records the running drain as interrupted, writes its state and exits 0", async () => {
      const config = join(dir.path, "relay.json");
      await writeFile(
        config,
        JSON.stringify({
          QUIESCE_CLUSTER: "test",
          QUIESCE_AUTH_MODE: "sharedKey",
          QUIESCE_POLL_INTERVAL_MS: 200,
        }),
      );
      child = spawn(process.execPath, [bundle, "--config", config], {
        env: {
          PATH: process.env.PATH ?? "",
          QUIESCE_COORDINATOR_URL: coordinator.url,
          QUIESCE_RELAY_KEY: RELAY_KEY,
          QUIESCE_IMDS_URL: imds.url,
          QUIESCE_STATE_FILE: join(dir.path, "state.json"),
          QUIESCE_DRAIN_COMMAND: `echo started > ${dir.path}/drain; sleep 30`,
        },
        stdio: ["ignore", "pipe", "inherit"],
      });
      child.stdout?.on("data", (c: Buffer) => {
        stdout += c.toString("utf8");
      });
      imds.setEvents([scheduled("E1", ["vm-0"])]);
      await waitFor("the drain to start", () =>
        readFile(join(dir.path, "drain"), "utf8").catch(() => undefined),
      );
      const exited = new Promise<number | null>((r) => child?.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const state = RelayState.parse(
        JSON.parse(await readFile(join(dir.path, "state.json"), "utf8")),
      );
      expect(state.events.e1?.drain?.status).toBe("interrupted");
      const logs = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { level: string; msg: string });
      expect(logs.map((l) => l.msg)).toEqual(
        expect.arrayContaining([
          "relay starting",
          "drain hook started",
          "signal received; stopping",
          "relay stopped",
        ]),
      );
      expect(stdout).not.toContain(RELAY_KEY);
    });

    it("in managedIdentity mode authenticates with the token of the VM's managed identity", async () => {
      // A loopback managed-identity endpoint (the App Service form @azure/identity picks up from
      // IDENTITY_ENDPOINT/IDENTITY_HEADER): proves the identity code embedded in the bundle loads,
      // asks for the audience, and that the token reaches the coordinator.
      const tokenRequests: string[] = [];
      const { createServer } = await import("node:http");
      const identity = createServer((req, res) => {
        tokenRequests.push(`${req.url} ${req.headers["x-identity-header"]}`);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            access_token: "vm-token-1",
            expires_on: String(Math.floor(Date.now() / 1000) + 3600),
            resource: "api://quiesce",
            token_type: "Bearer",
          }),
        );
      });
      await new Promise<void>((r) => identity.listen(0, "127.0.0.1", r));
      try {
        const port = (identity.address() as { port: number }).port;
        child = spawn(process.execPath, [bundle], {
          env: {
            PATH: process.env.PATH ?? "",
            QUIESCE_COORDINATOR_URL: coordinator.url,
            QUIESCE_CLUSTER: "test",
            QUIESCE_ENTRA_AUDIENCE: "api://quiesce",
            QUIESCE_IMDS_URL: imds.url,
            QUIESCE_STATE_FILE: join(dir.path, "state.json"),
            IDENTITY_ENDPOINT: `http://127.0.0.1:${port}/token`,
            IDENTITY_HEADER: "header-secret",
          },
          stdio: ["ignore", "ignore", "inherit"],
        });
        await waitFor("a report", () => coordinator.reports.length > 0);
        expect(coordinator.authorizations[0]).toBe("Bearer vm-token-1");
        expect(tokenRequests[0]).toMatch(/resource=api%3A%2F%2Fquiesce.* header-secret$/);
      } finally {
        identity.closeAllConnections();
        await new Promise((r) => identity.close(r));
      }
    });
  });
});
