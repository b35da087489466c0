import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { localMetrics, startWebhookReceiver, type WebhookReceiver } from "@quiesce/functions";
import { delay, parseWith } from "@quiesce/protocol";
import { jsonLogger, LOG_LEVELS, silentLogger } from "@quiesce/relay";
import { z } from "zod";
import { type DemoArgs, parseDemoArgs } from "./args";
import { type LocalCluster, startLocalCluster } from "./cluster";
import { type HookService, startHookService } from "./hookService";
import { renderBackends } from "./loadBalancerWatch";
import { renderMetrics } from "./metricsSummary";
import { play } from "./player";
import { fillPolicy } from "./policyTemplate";
import { loadScenario, type Scenario } from "./scenario";
import { renderProblems, renderSummary } from "./summary";

/**
 * `npm start`: the whole system on this machine, no Azure account. Azurite, the coordinator,
 * the fabric simulator with one real relay per VM, then a scenario played on a compressed clock
 * with a live narration and a summary. Ctrl-C stops everything.
 */

/** What the narration prints of a generic webhook notification. */
const Notification = z
  .object({ kind: z.string(), title: z.string(), severity: z.string() })
  .partial();

/** QUIESCE_DEMO_RELAY_LOG=info (or debug, warn, error) shows the relays' JSON logs on stderr. */
function relayLogger(text: string | undefined) {
  if (!text) return () => silentLogger;
  const level = z.enum(LOG_LEVELS).safeParse(text);
  if (!level.success)
    throw new Error(`QUIESCE_DEMO_RELAY_LOG must be one of ${LOG_LEVELS.join(", ")}`);
  return (vm: string) => jsonLogger(level.data, (line) => process.stderr.write(line), { vm });
}

async function main(): Promise<number> {
  let args: DemoArgs | string;
  let scenario: Scenario;
  try {
    const scenarios = join(resolve(__dirname, "..", ".."), "demo", "scenarios");
    args = parseDemoArgs(process.argv.slice(2), {
      scenario: join(scenarios, "default.json"),
      scenarios,
      stay: Boolean(process.stdin.isTTY),
    });
    if (typeof args === "string") {
      console.log(args);
      return 0;
    }
    scenario = loadScenario(args.scenario);
  } catch (e) {
    console.error(`quiesce demo: ${(e as Error).message}`);
    return 2;
  }
  if (args.timeScale !== undefined) scenario = { ...scenario, timeScale: args.timeScale };

  const say = (line: string) => process.stdout.write(`${line}\n`);
  const hook = (s: number) =>
    `"${process.execPath}" "${resolve(__dirname, "..", "hooks", "hook.js")}" ${s}`;
  say(`Quiesce demo: ${scenario.name}`);
  if (scenario.description) say(`  ${scenario.description}`);
  say("Starting Azurite, the coordinator, the fabric simulator and one relay per VM...");

  const stop = new AbortController();
  let cluster: LocalCluster | undefined;
  let receiver: WebhookReceiver | undefined;
  let hooks: HookService | undefined;
  let stopping: Promise<void> | undefined;
  const metrics = localMetrics();
  const shutdown = () => {
    stop.abort();
    stopping ??= (async () => {
      say("\nStopping relays, simulator, coordinator and Azurite...");
      await cluster?.stop();
      await receiver?.stop();
      await hooks?.stop();
      await metrics.shutdown();
    })();
    return stopping;
  };
  process.once("SIGINT", () => void shutdown().then(() => process.exit(130)));
  process.once("SIGTERM", () => void shutdown().then(() => process.exit(143)));

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
        (h) => say(`  [appliance service] ${h.hook} ${h.vm} (called by the coordinator: no relay)`),
      )
    : undefined;
  cluster = await startLocalCluster({
    coordinatorMeter: metrics.meter,
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
    relayLogger: relayLogger(process.env.QUIESCE_DEMO_RELAY_LOG),
    relaySettings: {
      QUIESCE_DRAIN_COMMAND: hook(scenario.drainSeconds),
      QUIESCE_RECOVER_COMMAND: hook(scenario.recoverSeconds),
    },
  });
  const c = cluster;
  say("");
  say(`  status page   ${c.coordinatorUrl}/api/ui   (sign in with the operator key below)`);
  say(`  coordinator   ${c.coordinatorUrl}   (status: ${c.coordinatorUrl}/api/status)`);
  say(`  simulator     ${c.fabric.url}   (control API: ${c.fabric.url}/control/timeline)`);
  say(`  relays        ${c.relays.size} VMs: ${[...c.relays.keys()].join(", ")}`);
  const relayless = c.fabric.vmNames().filter((vm) => !c.relays.has(vm));
  if (relayless.length > 0)
    say(
      `  no relay      ${relayless.join(", ")} (drained by the coordinator through ${hooks?.url ?? "no hook service"})`,
    );
  if (c.eventGrid)
    say(
      `  Event Grid    the simulator delivers every event change to ${c.coordinatorUrl}/api/maintenance/eventgrid (handshake ${c.eventGrid.handshake.state})`,
    );
  if (scenario.controlPlane)
    say(
      `  control plane the coordinator acts through the simulator's Azure Resource Manager at ${c.fabric.armUrl}\n                (load balancers: ${c.fabric.url}/control/loadBalancers, ARM calls: ${c.fabric.url}/control/arm/requests)`,
    );
  say(`  operator key  ${c.operatorKey}`);
  say(
    "  reader key    in .quiesce/local-keys.json (read-only: the page shows no operator buttons)",
  );
  say("  try:");
  say(
    `                curl -s -H "Authorization: Bearer $(node -p 'require("./.quiesce/local-keys.json").operatorKey')" ${c.coordinatorUrl}/api/status`,
  );
  say(
    `  your relay    QUIESCE_COORDINATOR_URL=${c.coordinatorUrl} QUIESCE_CLUSTER=${c.cluster} QUIESCE_AUTH_MODE=sharedKey`,
  );
  say("                QUIESCE_RELAY_KEY=<relayKey in .quiesce/local-keys.json>");
  say(
    `  notifications ${receiver.url("webhook")}   (signed webhook; each message is printed below as it arrives)`,
  );
  say(`  alerts        ${c.coordinatorUrl}/api/alerts   (coverage and undelivered notifications)`);
  say("  metrics       OpenTelemetry SDK in this process, printed after the summary");
  say("                (in Azure: Application Insights, customMetrics; see docs/operations.md)");
  say(
    `  time scale    ${scenario.timeScale}x (a 15-minute notice passes in ${Math.round(900 / scenario.timeScale)} s)`,
  );
  say("");

  // Every relay registered first: an event Azure publishes before its VMs' relays ever reported
  // would be claimed by no cluster yet (it would show in the unclaimed cluster until they do).
  const registered: string[] = [];
  const registeredBy = Date.now() + scenario.premiseTimeoutSeconds * 1000;
  for (;;) {
    const live = await c.status.cluster(c.cluster).then(
      (x) => x.liveMembers,
      () => 0,
    );
    if (live >= c.relays.size) break;
    if (Date.now() > registeredBy) {
      registered.push(
        `premise not met: every relay registered before the first event (${live} of ${c.relays.size} after ${scenario.premiseTimeoutSeconds} s); played anyway`,
      );
      break;
    }
    await delay(200);
  }
  for (const p of registered) say(`  ${p}`);
  const result = await play(scenario, c, say, stop.signal);
  if (stop.signal.aborted) return 130;
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
    "drained: real seconds from first sight to the last affected VM drained; notice saved: share of the",
  );
  say(
    "Scheduled → NotBefore window by which maintenance started early (the default is to wait it all out);",
  );
  say("gates held: the safety gates that kept an event from approval, and for how long (real s).");
  const backends = renderBackends(result.backends);
  if (backends.length > 0) {
    say("");
    say("Load balancers (simulated requests; a backend set Down gets no new ones):");
    for (const line of backends) say(`  ${line}`);
  }
  say("");
  say("Metrics (OpenTelemetry, read back from the SDK):");
  say(renderMetrics(await metrics.points()));
  if (args.stay) {
    say("");
    say(
      `Everything keeps running: the page at ${c.coordinatorUrl}/api/ui, status at ${c.coordinatorUrl}/api/status, simulator at ${c.fabric.url}/control. Ctrl-C stops.`,
    );
    await new Promise<void>((r) => stop.signal.addEventListener("abort", () => r()));
    return 130;
  }
  await shutdown();
  // A story whose premise failed is a failed demo, however well its events ended.
  return result.timedOut || notAsTold.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`quiesce demo failed: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 1;
  },
);
