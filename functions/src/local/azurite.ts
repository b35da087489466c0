import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { delay } from "@quiesce/protocol";

/**
 * Azurite's table service, started from node_modules as a child process on 127.0.0.1. Its
 * well-known development account key is public (documented by Microsoft), not a secret.
 */

const DEV_ACCOUNT = "devstoreaccount1";
const DEV_KEY =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

export interface AzuriteHandle {
  connectionString: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: Azurite loses what it had not yet saved (it saves every 5 s). */
  kill(): Promise<void>;
}

export interface AzuriteOptions {
  /** Folder for Azurite's data; in memory when absent. */
  location?: string;
  /** How long to wait for it to answer. */
  startTimeoutMs?: number;
  /** A fixed port (to restart on the same data where the clients point); a free one when absent. */
  port?: number;
}

const EXIT_WITH_PARENT =
  'data:text/javascript,process.stdin.on("end",()=>process.exit(0));process.stdin.on("error",()=>process.exit(0));process.stdin.resume();';

export function azuriteConnectionString(port: number): string {
  return `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};TableEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Azurite says so once its server is listening. A free port is only free when it was probed: a
 * process listening on port 0 may take it before Azurite binds it, and then the port answers HTTP
 * although Azurite failed with EADDRINUSE (a cluster's table client once talked to another test's
 * simulator that way). So the child's own line decides, and the port must then answer as Azurite.
 */
const STARTED = /Azurite Table service successfully started on 127\.0\.0\.1:(\d+)/;

async function answersAsAzurite(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/${DEV_ACCOUNT}/Tables`, {
      signal: AbortSignal.timeout(1000),
    });
    await res.body?.cancel();
    // Any status (even 403) means the service is up; the Server header says whose it is.
    return /^Azurite-Table\//.test(res.headers.get("server") ?? "");
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once("exit", () => r()));
}

async function startOnce(opts: AzuriteOptions): Promise<AzuriteHandle | null> {
  const port = opts.port ?? (await freePort());
  const main = createRequire(__filename).resolve("azurite/dist/src/table/main.js");
  const args = [
    main,
    "--tableHost",
    "127.0.0.1",
    "--tablePort",
    String(port),
    "--silent",
    "--disableTelemetry",
    "--skipApiVersionCheck",
    "--loose",
  ];
  if (opts.location) {
    mkdirSync(opts.location, { recursive: true });
    args.push("--location", opts.location);
  } else args.push("--inMemoryPersistence");
  // Azurite exits when its stdin closes, that is when this process is gone however it ended
  // (a SIGKILL runs no handler): no Azurite outlives the host or test that started it.
  const child = spawn(process.execPath, ["--import", EXIT_WITH_PARENT, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killed = await Promise.race([
      exited(child).then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 5000).unref()),
    ]);
    if (!killed) {
      child.kill("SIGKILL");
      await exited(child);
    }
  };
  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      // Lost a free port to someone else: try another (a fixed one is an error).
      if (/EADDRINUSE/.test(output) && opts.port === undefined) return null;
      throw new Error(`Azurite exited with code ${child.exitCode}: ${output.trim()}`);
    }
    if (STARTED.exec(output)?.[1] === String(port) && (await answersAsAzurite(port))) {
      const kill = async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGKILL");
        await exited(child);
      };
      return { connectionString: azuriteConnectionString(port), port, stop, kill };
    }
    await delay(100);
  }
  await stop();
  throw new Error(`Azurite did not answer on 127.0.0.1:${port} in time: ${output.trim()}`);
}

export async function startAzurite(opts: AzuriteOptions = {}): Promise<AzuriteHandle> {
  for (let i = 0; i < 5; i++) {
    const handle = await startOnce(opts);
    if (handle) return handle;
  }
  throw new Error("Azurite could not bind a free port on 127.0.0.1");
}
