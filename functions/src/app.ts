import { app, type HttpRequest, type InvocationContext, type Timer } from "@azure/functions";
import { redact } from "@quiesce/protocol";
import { loadCoordinatorSettings } from "./config";
import { type Coordinator, createCoordinator } from "./coordinator";
import { ROUTES } from "./routes";
import { startAzureMonitor } from "./telemetry/azureMonitor";

/**
 * The Functions host's entry point (package.json "main"): registers the handlers and nothing
 * else. Settings are read and the tables created on first use, so a bad setting shows up as a
 * clear error in that invocation's log rather than as a worker that fails to load.
 */

// Metrics to Application Insights (when a connection string is set): registered before the
// coordinator takes its meter, on the first invocation, so that loading app.js stays small
// (telemetry/azureMonitor.ts). Started once, even if creating the coordinator is retried.
let monitor: Promise<boolean> | undefined;
let coordinator: Promise<Coordinator> | undefined;
const get = (): Promise<Coordinator> => {
  monitor ??= startAzureMonitor().catch((e: unknown) => {
    monitor = undefined;
    throw e;
  });
  coordinator ??= monitor
    .then(() => createCoordinator(loadCoordinatorSettings()))
    .catch((e: unknown) => {
      coordinator = undefined; // retry on the next invocation (e.g. storage not reachable yet)
      // The host logs what is thrown: a storage error may name a SAS (docs/security.md).
      if (e instanceof Error) {
        e.message = redact(e.message);
        if (e.stack) e.stack = redact(e.stack);
      }
      throw e;
    });
  return coordinator;
};

for (const r of ROUTES) {
  app.http(r.name, {
    methods: r.methods,
    route: r.route,
    authLevel: "anonymous", // authentication is done in code: Entra tokens or the shared key
    handler: async (request: HttpRequest, context: InvocationContext) =>
      (await get()).handlers[r.handler](request, context),
  });
}

// Events Azure publishes off the VM (preview; docs/control-plane.md): infra/ subscribes the
// Event Grid system topic to this function when controlPlaneEvents is on.
app.eventGrid("maintenanceEvents", {
  handler: async (event, context: InvocationContext) => {
    await (await get()).handlers.eventGridTrigger(event, context);
  },
});

app.timer("sweep", {
  schedule: "%QUIESCE_SWEEP_SCHEDULE%",
  runOnStartup: false,
  handler: async (_timer: Timer, context: InvocationContext) => {
    await (await get()).handlers.sweep(context);
  },
});
