import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { localMetrics, startWebhookReceiver, type WebhookReceiver } from "@quiesce/functions";
import { delay, LOG_LEVELS, type LogLevel, parseWith } from "@quiesce/protocol";
import { z } from "zod";
import type { DemoArgs } from "./args";
import { type LocalCluster, startLocalCluster } from "./cluster";
import { type DemoLog, openDemoLog, renderTally } from "./demoLog";
import { DrainHolds } from "./drainHolds";
import { type HookService, startHookService } from "./hookService";
import { renderBackends } from "./loadBalancerWatch";
import { renderMetrics } from "./metricsSummary";
import { play } from "./player";
import { fillPolicy } from "./policyTemplate";
import type { Scenario } from "./scenario";
import { renderProblems, renderSummary } from "./summary";
import { startupLines } from "./welcome";

/**
 * One demo run: Azurite, the coordinator, the fabric simulator with one real relay per VM, then
 * the scenario played on a compressed clock with a live narration and a summary. Whatever
 * happens (a failure while starting, the end of the story, `signal`), everything it started is
 * stopped before it returns its exit code.
 */

export interface DemoIo {
  /** The narrative: story lines only. */
  say(line: string): void;
  /** The demo's own failure (stderr). */
  fail(line: string): void;
  /** Aborted: stop (Ctrl-C). */
  signal: AbortSignal;
  /** Where the demo's log goes (.quiesce/demo.log). */
  logPath: string;
  /** The relays' records in the log from this level (QUIESCE_DEMO_RELAY_LOG, default warn). */
  relayLogLevel: LogLevel;
}

/** What the narration prints of a generic webhook notification. */
const Notification = z
  .object({ kind: z.string(), title: z.string(), severity: z.string() })
  .partial();

/** QUIESCE_DEMO_RELAY_LOG, checked. */
export function relayLogLevel(text: string | undefined): LogLevel {
  if (!text) return "warn";
  const level = z.enum(LOG_LEVELS).safeParse(text);
  if (!level.success)
    throw new Error(`QUIESCE_DEMO_RELAY_LOG must be one of ${LOG_LEVELS.join(", ")}`);
  return level.data;
}

/** The coordinator's port taken: a message naming the port and the flag, not a stack. */
function portProblem(e: unknown, port: number): string | null {
  const err = e as NodeJS.ErrnoException & { port?: number };
  if (err?.code !== "EADDRINUSE" || (err.port !== undefined && err.port !== port)) return null;
  return `port ${err.port ?? port} is in use (the coordinator's port: --port N, default 7071; --port 0 picks a free one)`;
}

export async function runDemo(args: DemoArgs, scenario: Scenario, io: DemoIo): Promise<number> {
  const { say, signal } = io;
  const log: DemoLog = openDemoLog(io.logPath);
  const restoreConsole = log.captureConsole();
  const hookJs = resolve(__dirname, "..", "hooks", "hook.js");
  const holds = DrainHolds.create(scenario.steps);
  const hook = (s: number) => `"${process.execPath}" "${hookJs}" ${s} "${holds.dir}"`;
  const metrics = localMetrics();
  let cluster: LocalCluster | undefined;
  let receiver: WebhookReceiver | undefined;
  let hooks: HookService | undefined;
  const stopAll = async () => {
    await cluster?.stop();
    await receiver?.stop();
    await hooks?.stop();
    await metrics.shutdown();
    holds.remove();
  };
  say(`Quiesce demo: ${scenario.name}`);
  if (scenario.description) say(`  ${scenario.description}`);
  say("Starting Azurite, the coordinator, the fabric simulator and one relay per VM...");
  try {
    // Notifications go to a signed webhook on loopback that prints each one as it arrives (the
    // receiver checks the HMAC as docs/operations.md tells real receivers to).
    const webhookSecret = randomBytes(32).toString("base64url");
    receiver = await startWebhookReceiver({
      secret: webhookSecret,
      onMessage: (m) => {
        const parsed = parseWith(Notification, m.body);
        const b = parsed.ok ? parsed.value : {};
        say(
          `  [notification ${b.severity}] ${b.kind}: ${b.title} (signature ${m.signatureValid ? "ok" : "BAD"})`,
        );
      },
    });
    // VMs without a relay (agentless groups) are drained through this service's HTTP hooks.
    hooks = scenario.hookService
      ? await startHookService(
          {
            drain: scenario.hookService.drainSeconds * 1000,
            recover: scenario.hookService.recoverSeconds * 1000,
          },
          (h) =>
            say(`  [appliance service] ${h.hook} ${h.vm} (called by the coordinator: no relay)`),
        )
      : undefined;
    cluster = await startLocalCluster({
      coordinatorMeter: metrics.meter,
      coordinatorLog: (lvl, message) => log.write("coordinator", lvl, message),
      coordinatorSettings: {
        QUIESCE_WEBHOOK_URL: receiver.url("webhook"),
        QUIESCE_WEBHOOK_SECRET: webhookSecret,
      },
      cluster: scenario.cluster,
      ...(scenario.topology ? { topology: scenario.topology } : {}),
      timeScale: scenario.timeScale,
      fabricOptions: { minStartedSeconds: scenario.minStartedSeconds },
      ...(scenario.policy
        ? {
            policy: (f: LocalCluster["fabric"]) =>
              fillPolicy(scenario.policy, {
                fabricUrl: f.url,
                resourceGroupId: f.arm.resourceGroupId(),
                hookServiceUrl: hooks?.url ?? "http://127.0.0.1:9",
              }),
          }
        : {}),
      controlPlane: scenario.controlPlane,
      controlPlaneEvents: scenario.controlPlaneEvents,
      port: args.port,
      keysDir: resolve(".quiesce"),
      sweepIntervalMs: 1000,
      relayLogger: (vm) => log.relayLogger(vm, io.relayLogLevel),
      relaySettings: {
        QUIESCE_DRAIN_COMMAND: hook(scenario.drainSeconds),
        QUIESCE_RECOVER_COMMAND: hook(scenario.recoverSeconds),
      },
    });
    if (signal.aborted) return 130;
    const c = cluster;
    for (const line of startupLines(c, scenario, { receiver, hooks, logPath: io.logPath }))
      say(line);

    // Every relay registered first: an event Azure publishes before its VMs' relays ever
    // reported would be claimed by no cluster yet (it would show in the unclaimed cluster).
    const registered: string[] = [];
    const registeredBy = Date.now() + scenario.premiseTimeoutSeconds * 1000;
    for (;;) {
      const live = await c.status.cluster(c.cluster).then(
        (x) => x.liveMembers,
        () => 0,
      );
      if (live >= c.relays.size || signal.aborted) break;
      if (Date.now() > registeredBy) {
        registered.push(
          `premise not met: every relay registered before the first event (${live} of ${c.relays.size} after ${scenario.premiseTimeoutSeconds} s); played anyway`,
        );
        break;
      }
      await delay(200);
    }
    for (const p of registered) say(`  ${p}`);
    const result = await play(scenario, c, say, signal, holds);
    if (signal.aborted) return 130;
    const notAsTold = renderProblems(result.summaries, [
      ...registered,
      ...result.problems.filter((p) => p.event === null).map((p) => p.problem),
    ]);
    say("");
    say(
      result.timedOut
        ? `Summary (timed out after ${scenario.timeoutSeconds} s: some stories never ended):`
        : notAsTold.length > 0
          ? "Summary (some stories were not told as written: see below the table):"
          : "Summary:",
    );
    say(renderSummary(result.summaries));
    for (const line of notAsTold) say(line);
    say("");
    say(
      "drained: real seconds from first sight to the last affected VM drained; notice saved: the share of",
    );
    say(
      "the notice Quiesce had (first sight → NotBefore) still left at approval, s left in simulated time",
    );
    say(
      "(quiesce.event.notice_saved, on the simulator's clock; the default is to wait it all out: 0%);",
    );
    say(
      "gates held: the safety gates that kept an event from approval, and for how long (real s).",
    );
    const backends = renderBackends(result.backends);
    if (backends.length > 0) {
      say("");
      say("Load balancers (simulated requests; a backend set Down gets no new ones):");
      for (const line of backends) say(`  ${line}`);
    }
    say("");
    say("Metrics (OpenTelemetry, read back from the SDK):");
    const simNoticeSaved = result.summaries.flatMap((s) =>
      s.noticeSaved ? [{ eventType: s.eventType, ...s.noticeSaved }] : [],
    );
    say(renderMetrics(await metrics.points(), simNoticeSaved, c.fabric.now().timeScale));
    say("");
    for (const line of renderTally(io.logPath, log.tally())) say(line);
    if (args.stay) {
      say("");
      say(
        `Everything keeps running: the page at ${c.coordinatorUrl}/api/ui, status at ${c.coordinatorUrl}/api/status, simulator at ${c.fabric.url}/control. Ctrl-C stops.`,
      );
      await new Promise<void>((r) => {
        if (signal.aborted) r();
        else signal.addEventListener("abort", () => r());
      });
      return 130;
    }
    // A story whose premise failed is a failed demo, however well its events ended.
    return result.timedOut || notAsTold.length > 0 ? 1 : 0;
  } catch (e) {
    const port = portProblem(e, args.port);
    io.fail(`quiesce demo: ${port ?? `failed: ${(e as Error).stack ?? String(e)}`}`);
    return 1;
  } finally {
    say("");
    // A start that failed stopped its own parts (startLocalCluster): no relay ran.
    say(
      cluster
        ? "Stopping relays, simulator, coordinator and Azurite..."
        : "Stopping what had started...",
    );
    await stopAll().catch((e: unknown) => io.fail(`quiesce demo: stopping: ${String(e)}`));
    restoreConsole();
    log.close();
  }
}

/** Where the demo's log goes: beside the local keys. */
export const DEMO_LOG = join(".quiesce", "demo.log");
