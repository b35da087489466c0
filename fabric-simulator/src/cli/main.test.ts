import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceSources } from "../../../scripts/esbuild/workspace-sources.mjs";
import { FabricControlClient } from "../control/client";
import { getScheduledEvents } from "../imds/probe";

// The CLI as users run it: a separate process, bundled from source so the test needs no build.
let dir: string;
let cli: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fabric-cli-"));
  cli = join(dir, "cli.js");
  await build({
    entryPoints: [resolve(__dirname, "main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    outfile: cli,
    logLevel: "silent",
    plugins: [workspaceSources()],
  });
});

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill("SIGKILL");
      await new Promise((r) => c.once("exit", r));
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): {
  child: ChildProcess;
  url: Promise<string>;
  exit: Promise<number | null>;
  out: () => string;
} {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  const url = new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed within 10 s: ${out}`)), 10_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1] as string);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`exited before listening: ${out}`));
    });
  });
  url.catch(() => undefined);
  const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, url, exit, out: () => out };
}

describe("CLI", () => {
  it("serves a topology file on the given port, prints each VM's IMDS URL and stops on SIGTERM", async () => {
    const topo = join(dir, "topology.json");
    writeFileSync(
      topo,
      JSON.stringify({ groups: [{ kind: "availabilitySet", name: "web", vms: ["w0", "w1"] }] }),
    );
    const p = run(["--port", "0", "--time-scale", "60", "--topology", topo]);
    const url = await p.url;
    expect(p.out()).toContain(`${url}/vm/w1`);
    const control = new FabricControlClient(url);
    expect((await control.clock()).timeScale).toBe(60);
    const arm = await control.arm();
    expect(p.out()).toContain(`Azure Resource Manager (loopback): ${arm.armUrl}`);
    expect(p.out()).toContain(`IDENTITY_ENDPOINT=${arm.identity.endpoint}`);
    const e = await control.schedule({ eventType: "Reboot", group: "web" });
    const d = await getScheduledEvents(`${url}/vm/w0`);
    expect(d.body?.Events[0]?.EventId).toBe(e.eventId);
    p.child.kill("SIGTERM");
    expect(await p.exit).toBe(0);
  });

  it("refuses an invalid topology file with the reasons and exit code 2", async () => {
    const topo = join(dir, "bad.json");
    writeFileSync(topo, JSON.stringify({ groups: [{ kind: "availabilitySet", name: "web" }] }));
    const p = run(["--port", "0", "--topology", topo]);
    expect(await p.exit).toBe(2);
    expect(p.out()).toContain("invalid topology");
    expect(p.out()).toContain("groups.0.vms");
  });

  it("refuses a topology file that is not JSON with exit code 2, not a crash", async () => {
    const topo = join(dir, "broken.json");
    writeFileSync(topo, "{ groups: ");
    const p = run(["--port", "0", "--topology", topo]);
    expect(await p.exit).toBe(2);
    expect(p.out()).toContain("not JSON");
  });
});
