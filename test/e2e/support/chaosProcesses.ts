import { type ChildProcess, spawn } from "node:child_process";
import type { ReportProxy } from "@quiesce/testkit/front";

/** What the chaos cluster kills and steers besides the coordinators: a relay process, replays. */

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once("exit", () => r()));
}

/** The relay as its own process (the shipped bundle), SIGKILL-able and started again. */
export class RelayProcess {
  private child: ChildProcess | undefined;
  output = "";
  constructor(
    private readonly bundle: string,
    private readonly env: Record<string, string>,
  ) {}

  start(): void {
    const child = spawn(process.execPath, [this.bundle], {
      env: { PATH: process.env.PATH ?? "", ...this.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    const keep = (b: Buffer) => {
      this.output = (this.output + b.toString()).slice(-8000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
  }

  /** A crash: no handler runs, nothing is flushed. */
  async kill(): Promise<void> {
    const c = this.child;
    if (!c) return;
    c.kill("SIGKILL");
    await exited(c);
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill("SIGTERM");
    const done = await Promise.race([
      exited(c).then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 5000).unref()),
    ]);
    if (!done) await this.kill();
  }
}

/**
 * Behind the relay's back, after forwarding a report, sends the same report again (a duplicate)
 * and the one before it (out of order, older incarnation or hook state): the coordinator must
 * take both without rolling anything back.
 */
export function replayReports(proxy: ReportProxy) {
  const last = new Map<string, Buffer>();
  const stats = { replayed: 0, inFlight: 0 };
  const post = (path: string, headers: Record<string, string>, body: Buffer) => {
    stats.inFlight++;
    return fetch(`${proxy.target}${path}`, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(5_000),
    })
      .then(
        (r) => r.arrayBuffer(),
        () => undefined,
      )
      .finally(() => {
        stats.inFlight--;
      });
  };
  proxy.afterAnswer = ({ vm, path, headers, body, status }) => {
    if (path !== "/api/relay/report" || status !== 200) return;
    const before = last.get(vm);
    last.set(vm, body);
    void (async () => {
      await post(path, headers, body);
      if (before) await post(path, headers, before);
      stats.replayed += before ? 2 : 1;
    })();
  };
  return stats;
}
