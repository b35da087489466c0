import { randomUUID } from "node:crypto";
import { addSecrets, type Clock, systemClock } from "@quiesce/protocol";
import type { ScheduledEventsDocument, VmIdentity } from "@quiesce/protocol/imds";
import type { RelaySettings } from "./config";
import { type TokenSource, tokenSource } from "./coordinator/auth";
import { CoordinatorClient } from "./coordinator/client";
import { markInterrupted } from "./decisions/reconcile";
import type { RelayState } from "./decisions/state";
import { Heartbeat, HeartbeatImdsClient, heartbeatFileFor } from "./heartbeat";
import { type HookRunner, hookRunner } from "./hooks/runner";
import type { ImdsClientOptions } from "./imds/client";
import { errorText, jsonLogger, type Logger, redactingLogger } from "./log";
import { relayConfigFrom } from "./options";
import { Approver } from "./shell/approver";
import { Attester } from "./shell/attester";
import { RelayContext } from "./shell/context";
import { HookSupervisor } from "./shell/hookSupervisor";
import { ImdsWatcher } from "./shell/imdsWatcher";
import { Reporter } from "./shell/reporter";
import { loadState, StateFileWriter } from "./stateFile";
import { RELAY_VERSION } from "./version";

export interface RelayOptions {
  logger?: Logger;
  clock?: Clock;
  /** Tuning of IMDS retries and timeouts (tests, the simulator's time scale). */
  imds?: Partial<Omit<ImdsClientOptions, "baseUrl" | "apiVersion">>;
  /** Backoff between failed reports: jittered, doubling from baseMs to maxMs. */
  reportRetry?: { baseMs: number; maxMs: number };
  /** Bounds on the coordinator's nextReportInSeconds. */
  heartbeatBoundsMs?: { min: number; max: number };
  tokens?: TokenSource;
  hooks?: HookRunner;
  /** How often the heartbeat file may be written (heartbeat.ts; tests write it at every read). */
  heartbeatEveryMs?: number;
}

export interface RelaySnapshot {
  vm: VmIdentity | undefined;
  document: ScheduledEventsDocument | null;
  state: RelayState;
  bootId: string;
  seq: number;
  coordinator: {
    reports: number;
    failuresInARow: number;
    lastError?: string;
    lastAnswerAt?: string;
  };
}

export interface RelayHandle {
  /** Stops polling and reporting, interrupts running hooks, writes the state. Never exits the process. */
  stop(): Promise<void>;
  state(): RelaySnapshot;
}

const DEFAULT_RETRY = { baseMs: 1_000, maxMs: 10_000 };
const DEFAULT_HEARTBEAT_BOUNDS = { min: 1_000, max: 300_000 };

/**
 * The imperative shell around the pure decisions (relay/src/decisions): two independent loops, IMDS polling
 * (shell/imdsWatcher.ts) and reporting (shell/reporter.ts), plus hooks (shell/hookSupervisor.ts)
 * and approvals (shell/approver.ts) running beside them, all sharing one context
 * (shell/context.ts), so the coordinator or a slow hook never delays the next IMDS poll.
 */
export async function startRelay(
  settings: RelaySettings,
  opts: RelayOptions = {},
): Promise<RelayHandle> {
  // Secrets never leave (docs/security.md): the key is known from here on, and every log line,
  // whichever logger takes it, is redacted.
  const config = relayConfigFrom(settings);
  if (config.auth.mode === "sharedKey") addSecrets([config.auth.relayKey]);
  const log = redactingLogger(opts.logger ?? jsonLogger(config.logLevel));
  const clock = opts.clock ?? systemClock;
  const bootId = randomUUID();

  const writer = new StateFileWriter(config.stateFile, (e) =>
    log.error("state file write failed", {
      file: config.stateFile,
      error: errorText(e),
    }),
  );
  const loaded = await loadState(config.stateFile);
  if (loaded.problem) log.warn(loaded.problem, { file: config.stateFile });
  // A hook recorded as running belongs to a previous process that stopped under it.
  const initial = markInterrupted(loaded.state, clock.now(), "relay stopped while the hook ran");
  const ctx = new RelayContext(config, log, clock, writer, initial);

  // Every read of the IMDS loop beats, for `quiesce-relay --probe` (a liveness probe); the first
  // beat now, so a restarted relay is not judged by its predecessor's file.
  const heartbeat = new Heartbeat(
    heartbeatFileFor(config.stateFile),
    (error) => log.warn("heartbeat file write failed", { error }),
    opts.heartbeatEveryMs,
  );
  heartbeat.beat();
  const imds = new HeartbeatImdsClient(
    {
      baseUrl: config.imds.url,
      apiVersion: config.imds.apiVersion,
      ...opts.imds,
      onRetry: (r) => log.debug("IMDS retry", r),
    },
    heartbeat,
  );
  const coordinator = new CoordinatorClient(
    config.coordinatorUrl,
    opts.tokens ?? tokenSource(config.auth),
  );
  const base = opts.hooks ?? hookRunner(config.hooks);
  // Imported only when on: a relay that does not drain Kubernetes never even builds its schemas.
  const k8s = config.kubernetes.enabled
    ? (await import("./kubernetes/hook.js")).kubernetesHooks(config.kubernetes, base, {
        log,
        clock,
      })
    : undefined;
  const hooks = new HookSupervisor(ctx, k8s ?? base, k8s?.observe);
  const watcher = new ImdsWatcher(ctx, imds, hooks);
  const reporter = new Reporter(
    ctx,
    coordinator,
    watcher,
    hooks,
    new Approver(ctx, imds),
    bootId,
    opts.reportRetry ?? DEFAULT_RETRY,
    opts.heartbeatBoundsMs ?? DEFAULT_HEARTBEAT_BOUNDS,
    new Attester(imds, log),
  );

  log.info("relay starting", {
    version: RELAY_VERSION,
    bootId,
    cluster: config.cluster,
    coordinator: config.coordinatorUrl,
    imds: config.imds.url,
    authMode: config.auth.mode,
    dryRun: config.dryRun,
    stateFile: config.stateFile,
    kubernetesDrain: config.kubernetes.enabled,
  });
  const loops = [watcher.run(), reporter.run()].map((p) =>
    p.catch((e) => log.error("relay loop crashed", { error: errorText(e) })),
  );

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        log.info("relay stopping");
        ctx.stopping.abort();
        ctx.reports.interrupt();
        await Promise.allSettled(loops);
        await heartbeat.stop();
        await ctx.settle();
        await ctx.flush(markInterrupted(ctx.state, ctx.now(), "relay stopped while the hook ran"));
        await Promise.allSettled([imds.close(), coordinator.close()]);
        log.info("relay stopped", { bootId });
      })();
      return stopped;
    },
    state: () => ({
      vm: ctx.vm,
      document: ctx.latest,
      state: ctx.state,
      bootId,
      seq: reporter.seq,
      coordinator: { ...reporter.stats },
    }),
  };
}
