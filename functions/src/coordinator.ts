import type { TokenCredential } from "@azure/identity";
import { type Meter, metrics } from "@opentelemetry/api";
import { type Clock, type Logger, systemClock } from "@quiesce/protocol";
import { callHook, createArmClient, createPooledAgent, probeHttp } from "./arm";
import { type Attestor, createAttestor } from "./attestation";
import {
  createAuthenticator,
  createGraphIdentityResolver,
  type ManagedIdentityResolver,
} from "./auth";
import type { CoordinatorSettings } from "./config";
import { ControlPlane } from "./controlPlane";
import { createArmPorts } from "./controlPlane/armPorts";
import { createChangeRecordPorts } from "./controlPlane/changeRecordPorts";
import { openRegionWatch } from "./controlPlane/openRegionWatch";
import { openPatchRunTable } from "./guestPatching/runTable";
import { GuestPatchingRuns } from "./guestPatching/service";
import { createHandlers, type HandlerDeps, type Handlers } from "./handlers";
import { appLogger } from "./log";
import { syncMaintenanceSignal } from "./maintenanceSignal/sync";
import { DEFAULT_BACKOFF } from "./notify/backoff";
import { Notifier } from "./notify/notifier";
import { Outbox } from "./notify/outbox";
import { Sinks } from "./notify/sinks";
import { type CoordinatorOptions, optionsFrom, policiesFrom } from "./options";
import { registerSettingSecrets } from "./secrets";
import { RefusedReports } from "./status/refusedReports";
import type { RetryOptions } from "./store";
import { lazyCredential, openAttestationTable, openOutboxTable, openStore } from "./store";
import { Telemetry } from "./telemetry/metrics";

/** The global meter: a no-op until Azure Monitor (app.ts) or another SDK registers a provider. */
export const METER_NAME = "quiesce.coordinator";

export interface Coordinator {
  deps: HandlerDeps;
  handlers: Handlers;
}

/** Wires settings into a store, an authenticator and the handlers; creates the tables. */
export async function createCoordinator(
  settings: CoordinatorSettings,
  opts: {
    clock?: Clock;
    retry?: RetryOptions;
    fetchImpl?: typeof fetch;
    identityResolver?: ManagedIdentityResolver;
    /** Where metrics go; defaults to the global MeterProvider's. */
    meter?: Meter;
    /** Draws for the retry jitter (tests pin it). */
    random?: () => number;
    /**
     * The app's identity for Azure Resource Manager and gate bearers; defaults to its managed
     * identity (QUIESCE_STORAGE_CLIENT_ID when user-assigned).
     */
    credential?: TokenCredential;
    /**
     * Where what outlives an invocation logs (follow-ups, hook runs, notification deliveries);
     * defaults to JSON lines on the worker's stdout and stderr (log/index.ts).
     */
    log?: Logger;
  } = {},
): Promise<Coordinator> {
  // The settings as the code uses them, built once here (options.ts).
  const options = optionsFrom(settings);
  registerSettingSecrets(options);
  const telemetry = new Telemetry(opts.meter ?? metrics.getMeter(METER_NAME));
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? appLogger();
  const store = openStore(options.store, clock, telemetry.table);
  const outbox = new Outbox(openOutboxTable(options.store, telemetry.table));
  const patchRuns = openPatchRunTable(options.store, telemetry.table);
  // One pooled keep-alive Agent for every outbound call: webhooks, ARM, HTTP gates.
  const dispatcher = createPooledAgent();
  await Promise.all([store.init(), outbox.init(), patchRuns.init()]);
  const { deadlineMs, statusPageUrl, ...sinks } = options.notify;
  const notifier = new Notifier({
    outbox,
    sinks: new Sinks(
      { ...sinks, ...(statusPageUrl ? { links: { statusPage: statusPageUrl } } : {}) },
      dispatcher,
    ),
    observer: telemetry,
    clock,
    backoff: { ...DEFAULT_BACKOFF, deadlineMs },
    ...(opts.random ? { random: opts.random } : {}),
    log,
  });
  const credential = opts.credential ?? managedIdentity(options.managedIdentityClientId);
  const arm = options.arm
    ? createArmClient({
        ...options.arm,
        credential,
        dispatcher,
        clock,
        // The sweep waits for these calls: a Retry-After past 10 s ends the attempt, and the
        // control plane tries again at a later sweep (its lease and attempts bound the whole).
        maxRetryWaitMs: 10_000,
        ...(opts.random ? { random: opts.random } : {}),
      })
    : null;
  const policies = policiesFrom(settings);
  const regions = arm
    ? await openRegionWatch(arm, options, { clock, telemetry, notifier, policies, log })
    : null;
  const guestPatching = new GuestPatchingRuns({
    runs: patchRuns,
    store,
    policies,
    clock,
    arm,
    log,
    notifier,
  });
  const changeRecords = arm ? createChangeRecordPorts(arm, options.changeSafety) : null;
  const controlPlane = new ControlPlane(
    {
      store,
      clock,
      telemetry,
      notifier,
      log,
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(regions ? { regions } : {}),
      ...(changeRecords ? { changeRecords } : {}),
    },
    arm ? createArmPorts(arm, { policyToken: options.changeSafety.policyToken }) : null,
    (gate) =>
      probeHttp(
        {
          url: gate.url,
          expectStatus: gate.expectStatus,
          timeoutMs: gate.timeoutSeconds * 1000,
          ...(gate.bearerScope ? { bearerScope: gate.bearerScope } : {}),
        },
        { credential, dispatcher },
      ),
    (hook, vmName, payload) => callHook(hook, vmName, payload, { credential, dispatcher }),
    (g) => guestPatching.verdict(g),
  );
  let attestor: Attestor | null = null;
  if (arm) {
    const table = openAttestationTable(options.store, telemetry.table);
    await table.create();
    attestor = createAttestor(options.attestor, options.attestation.periodMs, {
      arm,
      table,
      dispatcher,
      log,
    });
  }
  const deps: HandlerDeps = {
    telemetry,
    attestor,
    notifier,
    controlPlane,
    store,
    authenticator: createAuthenticator(options.auth, {
      ...(opts.fetchImpl ? { fetchImpl: opts.fetchImpl } : {}),
      ...identityResolverFor(options, opts.identityResolver),
    }),
    options,
    policies,
    guestPatching,
    maintenanceSignal: (ticked, log, skipped) =>
      syncMaintenanceSignal({ policies, gauges: telemetry.maintenance, arm }, ticked, log, skipped),
    clock,
    refusedReports: new RefusedReports(clock.now()),
    log,
    ...(opts.retry ? { retry: opts.retry } : {}),
  };
  return { deps, handlers: createHandlers(deps) };
}

/**
 * Entra mode: relay tokens for our own app carry no xms_mirid / xms_az_rid, so the relay's VM is
 * looked up in Microsoft Graph with the app's own managed identity (docs/auth.md).
 */
function identityResolverFor(
  options: CoordinatorOptions,
  given: ManagedIdentityResolver | undefined,
): { identityResolver?: ManagedIdentityResolver } {
  if (given) return { identityResolver: given };
  if (options.auth.mode !== "entra") return {};
  return {
    identityResolver: createGraphIdentityResolver({
      credential: managedIdentity(options.managedIdentityClientId),
      graphUrl: options.auth.graphUrl,
    }),
  };
}

/**
 * The app's managed identity, made on first use (@azure/identity loaded then): a coordinator with
 * no control plane, no gate bearer and no Graph lookup (sharedKey mode, most tests) never builds
 * one, nor loads the library.
 */
function managedIdentity(clientId: string | undefined): TokenCredential {
  return lazyCredential(
    (identity) => new identity.ManagedIdentityCredential(clientId ? { clientId } : undefined),
  );
}
