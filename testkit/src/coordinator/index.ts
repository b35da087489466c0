import { type ChildProcess, fork } from "node:child_process";
import { mkdirSync, renameSync } from "node:fs";
import { join, resolve } from "node:path";
import type { OpCounts } from "@quiesce/functions";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { ChildSettings, FromChild, Ready, Stats, ToChild } from "./messages";

/**
 * The coordinator as its own process (./main.ts, bundled), for the benchmarks (a load generator
 * must not share its event loop) and the chaos tests (SIGKILL it, start it again on the same port
 * and data); and the one client that posts relay reports to a coordinator.
 */

let bundled: Promise<string> | undefined;

/**
 * Bundles ./main.ts from the workspace sources (other packages stay in node_modules, hence the
 * output inside it) once per process; the benchmarks have bench/run.mjs bundle it instead (so
 * esbuild and the plugin load only here, never inside the bench's own bundle).
 */
export function coordinatorBundle(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import("esbuild");
    const { workspaceSources } = await import("../../../scripts/esbuild/workspace-sources.mjs");
    const repo = resolve(__dirname, "..", "..", "..");
    const outDir = join(repo, "node_modules", ".cache", "quiesce-testkit");
    mkdirSync(outDir, { recursive: true });
    // Built aside and renamed into place: files running in parallel may bundle it at once.
    const building = join(outDir, `coordinator-${process.pid}.cjs`);
    const outfile = join(outDir, "coordinator.cjs");
    await build({
      entryPoints: [join(__dirname, "main.ts")],
      outfile: building,
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node22",
      sourcemap: "inline",
      logLevel: "error",
      plugins: [workspaceSources({ externalPackages: true })],
    });
    renameSync(building, outfile);
    return outfile;
  })();
  return bundled;
}

export interface CoordinatorProcessOptions {
  /** The bundled ./main.ts: coordinatorBundle(), or the bench's own build of it. */
  bundle: string;
  connectionString: string;
  name?: string;
  keysDir?: string;
  /** QUIESCE_* settings (QUIESCE_POLICY...). */
  settings?: Record<string, string>;
  /** How often it sweeps; 0 (the default): never. */
  sweepIntervalMs?: number;
  metrics?: boolean;
  /** Have it measure its own scheduling delay, for lag() (tests that bound wall time). */
  measureLag?: boolean;
  execArgv?: string[];
  /** Also print its output here (the benchmarks); it always keeps the last 8 kB for errors. */
  inheritOutput?: boolean;
}

export type CoordinatorStats = OpCounts & {
  cpuMs: number;
  rssBytes: number;
  heapUsedBytes: number;
};

/** One coordinator instance; a restart comes back on the same port, where its relays point. */
export class CoordinatorProcess {
  readonly name: string;
  port = 0;
  relayKey = "";
  operatorKey = "";
  readerKey = "";
  /** The tail of its stdout and stderr. */
  output = "";
  private child: ChildProcess | undefined;

  constructor(private readonly o: CoordinatorProcessOptions) {
    this.name = o.name ?? "coordinator";
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts it (again); resolves once it listens. */
  async start(): Promise<this> {
    const settings: ChildSettings = {
      connectionString: this.o.connectionString,
      ...(this.o.keysDir ? { keysDir: this.o.keysDir } : {}),
      port: this.port,
      settings: this.o.settings ?? {},
      sweepIntervalMs: this.o.sweepIntervalMs ?? 0,
      metrics: this.o.metrics ?? false,
      measureLag: this.o.measureLag ?? false,
    };
    const child = fork(this.o.bundle, [], {
      env: { ...process.env, QUIESCE_TESTKIT_COORDINATOR: JSON.stringify(settings) },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      execArgv: ["--enable-source-maps", ...(this.o.execArgv ?? [])],
    });
    this.child = child;
    const keep = (b: Buffer) => {
      this.output = (this.output + b.toString()).slice(-8000);
      if (this.o.inheritOutput) process.stderr.write(b);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const ready = await this.next<Ready>("ready");
    this.port = Number(new URL(ready.url).port);
    this.relayKey = ready.relayKey;
    this.operatorKey = ready.operatorKey;
    this.readerKey = ready.readerKey;
    return this;
  }

  async stats(opts: { gc?: boolean } = {}): Promise<CoordinatorStats> {
    const answer = this.next<Stats>("stats");
    this.send(opts.gc ? "gc-stats" : "stats");
    const { stats, ...rest } = await answer;
    return { ...stats, ...rest };
  }

  /** With metrics on: exports now, and says how big the export since the last call was. */
  async metrics(): Promise<{ bytes: number; points: number }> {
    const answer = this.next<{ metrics: { bytes: number; points: number } }>("metrics");
    this.send("metrics");
    return (await answer).metrics;
  }

  /** Its scheduling delay within [fromMs, toMs] (with measureLag; 0 when it is not running). */
  async lag(fromMs: number, toMs: number): Promise<number> {
    if (!this.running()) return 0;
    const answer = this.next<{ lag: { ms: number } }>("lag");
    this.send({ lag: [fromMs, toMs] });
    return (await answer).lag.ms;
  }

  /** A crash: no handler runs, nothing is flushed. */
  async kill(): Promise<void> {
    const c = this.child;
    if (!c || !this.running()) return;
    c.kill("SIGKILL");
    await exited(c);
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c || !this.running()) return;
    c.send("stop");
    const timer = setTimeout(() => c.kill("SIGKILL"), 5_000);
    await exited(c);
    clearTimeout(timer);
  }

  private running(): boolean {
    const c = this.child;
    return c !== undefined && c.exitCode === null && c.signalCode === null;
  }

  private send(m: ToChild): void {
    this.child?.send(m);
  }

  /** The next message from it that has `key`; rejects if it exits first. */
  private next<T extends FromChild>(key: string): Promise<T> {
    const child = this.child;
    if (!child) return Promise.reject(new Error(`${this.name} is not started`));
    return new Promise<T>((resolveMessage, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`${this.name} exited (${code}): ${this.output}`));
      const onMessage = (m: FromChild) => {
        if (!(key in m)) return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolveMessage(m as T);
      };
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once("exit", () => r()));
}

export function startCoordinatorProcess(o: CoordinatorProcessOptions): Promise<CoordinatorProcess> {
  return new CoordinatorProcess(o).start();
}

/**
 * POSTs one relay report to a coordinator (or a front) over loopback, reading the whole answer;
 * resolves to its HTTP status, text and wall time. The one report client of the benchmarks.
 */
export function reportPoster(target: {
  url: string;
  relayKey: string;
}): (body: RelayReport) => Promise<{ status: number; text: string; ms: number }> {
  const url = `${target.url.replace(/\/+$/, "")}/api/relay/report`;
  return async (body) => {
    const t0 = performance.now();
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${target.relayKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - t0 };
  };
}
