import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceSources } from "../../scripts/esbuild/workspace-sources.mjs";

/**
 * `npm start` as users run it, a process of its own (bundled from source: no build needed), on a
 * port another process holds: it says which port and which flag, stops what it started, and
 * exits 1, where it used to print the error and hang with Azurite and its servers still up.
 */

const repo = resolve(__dirname, "..", "..");
// Inside node_modules, so that the bundle's bare imports (Azurite included) resolve.
const cache = join(repo, "node_modules", ".cache");
let out: string;
let cwd: string;
let busy: Server;
let port: number;
let child: ChildProcess | undefined;

beforeAll(async () => {
  mkdirSync(cache, { recursive: true });
  out = mkdtempSync(join(cache, "quiesce-demo-test-"));
  cwd = mkdtempSync(join(tmpdir(), "quiesce-demo-cwd-"));
  await build({
    entryPoints: [join(__dirname, "main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    outfile: join(out, "main.cjs"),
    logLevel: "silent",
    plugins: [workspaceSources({ externalPackages: true })],
  });
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, "127.0.0.1", r));
  port = (busy.address() as { port: number }).port;
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await new Promise<void>((r) => busy.close(() => r()));
  rmSync(out, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

/** Live processes whose environment carries `mark`: the demo and whatever it started. */
function processesMarked(mark: string): string[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/environ`, "utf8").includes(mark);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    });
}

describe("npm start on a port in use", () => {
  it.runIf(existsSync("/proc/self/environ"))(
    "exits 1 naming the port and --port, with nothing it started left running",
    async () => {
      const mark = `QUIESCE_DEMO_TEST_MARK=${randomUUID()}`;
      const [key, value] = mark.split("=") as [string, string];
      const scenario = join(repo, "demo", "scenarios", "default.json");
      child = spawn(
        process.execPath,
        [join(out, "main.cjs"), "--scenario", scenario, "--port", String(port), "--exit"],
        { cwd, env: { ...process.env, [key]: value }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      let stdout = "";
      child.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      child.stdout?.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      const sawAzurite = new Promise<boolean>((r) => {
        // Azurite is up before the coordinator tries the port: proof it had something to stop.
        const poll = setInterval(() => {
          if (processesMarked(mark).length > 1) r(true);
        }, 100);
        child?.once("exit", () => {
          clearInterval(poll);
          r(false);
        });
      });
      // Bounded: the hang this guards against never ends.
      const code = await new Promise<number | null>((r, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`still running after 45 s:\n${stdout}\n${stderr}`)),
          45_000,
        );
        child?.once("exit", (c) => {
          clearTimeout(timer);
          r(c);
        });
      });

      expect(await sawAzurite).toBe(true);
      expect(code).toBe(1);
      expect(stderr).toContain(`quiesce demo: port ${port} is in use`);
      expect(stderr).toContain("--port N");
      expect(stderr).not.toMatch(/\n\s+at /); // a message, not a stack
      expect(stdout).toContain("Stopping what had started...");
      expect(processesMarked(mark)).toEqual([]);
    },
    60_000,
  );
});
