import type { InvocationContext } from "@azure/functions";
import { createSweep, type SweepSummary } from "../pipeline/sweep";
import { createBackstop } from "../published/backstop";
import { createPublishedIntake } from "../published/intake";
import { OwnerIndexCache } from "../published/ownerIndexCache";
import { alertsHandler } from "./alerts";
import type { Handler } from "./compose";
import { conditional } from "./conditional";
import type { HandlerDeps } from "./deps";
import { eventGridTriggerHandler, eventGridWebhookHandler } from "./eventGrid";
import { operatorHandler } from "./operator";
import { redacting, redactingContext } from "./redacting";
import { reportHandler } from "./report";
import { clusterHandler, eventHandler, statusHandler } from "./status";
import { withStoreErrors } from "./storeErrors";
import { meHandler, pageHandler } from "./ui";

export type { Handler } from "./compose";
export type { HandlerDeps } from "./deps";
export { sweepTimerHandler } from "./sweep";

export interface Handlers {
  report: Handler;
  status: Handler;
  cluster: Handler;
  event: Handler;
  alerts: Handler;
  hold: Handler;
  release: Handler;
  forceApprove: Handler;
  forceGate: Handler;
  page: Handler;
  me: Handler;
  sweep: (context?: InvocationContext) => Promise<SweepSummary>;
  /** POST /api/maintenance/eventgrid: Event Grid's webhook (handlers/eventGrid.ts). */
  eventGrid: Handler;
  /** The Functions Event Grid trigger `maintenanceEvents` (app.ts). */
  eventGridTrigger: (event: unknown, context: InvocationContext) => Promise<void>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const owners = new OwnerIndexCache(deps.store, deps.policies.all, deps.clock);
  const intake = createPublishedIntake(deps, owners, (cluster, keys) =>
    deps.controlPlane.followUp(cluster, deps.policies.for(cluster), keys),
  );
  const sweep = createSweep(deps, createBackstop(deps, owners, intake));
  const eventGridTrigger = eventGridTriggerHandler(deps, intake);
  // Secrets never leave (docs/security.md): every answer and every log line is redacted.
  const r = redacting;
  return {
    // Its answer carries the relay's binding token: redacted logs only (the report itself is, on
    // receipt).
    report: r(withStoreErrors("report", reportHandler(deps)), { answer: false }),
    // Conditional GETs: the status page polls these with If-None-Match.
    status: conditional(r(withStoreErrors("status", statusHandler(deps)))),
    cluster: conditional(r(withStoreErrors("cluster", clusterHandler(deps)))),
    event: conditional(r(withStoreErrors("event", eventHandler(deps)))),
    alerts: r(withStoreErrors("alerts", alertsHandler(deps))),
    hold: r(withStoreErrors("hold", operatorHandler(deps, "hold"))),
    release: r(withStoreErrors("release", operatorHandler(deps, "release"))),
    forceApprove: r(withStoreErrors("force-approve", operatorHandler(deps, "forceApprove"))),
    forceGate: r(withStoreErrors("force-gate", operatorHandler(deps, "forceGate"))),
    page: r(pageHandler(deps)),
    me: r(meHandler(deps)),
    sweep: (context) => sweep(context && redactingContext(context)),
    eventGrid: r(withStoreErrors("maintenance/eventgrid", eventGridWebhookHandler(deps, intake)), {
      answer: false, // the validation handshake echoes Event Grid's code
    }),
    eventGridTrigger: (event, context) => eventGridTrigger(event, redactingContext(context)),
  };
}
