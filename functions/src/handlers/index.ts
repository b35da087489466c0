import type { InvocationContext } from "@azure/functions";
import { policyFor } from "@quiesce/protocol/policy";
import { createSweep, type SweepSummary } from "../pipeline/sweep";
import { createBackstop } from "../published/backstop";
import { ClaimIndexCache } from "../published/claimIndexCache";
import { createPublishedIntake } from "../published/intake";
import { alertsHandler } from "./alerts";
import type { Handler } from "./compose";
import { conditional } from "./conditional";
import type { HandlerDeps } from "./deps";
import { eventGridTriggerHandler, eventGridWebhookHandler } from "./maintenance";
import { operatorHandler } from "./operator";
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
  /** POST /api/maintenance/eventgrid: Event Grid's webhook (handlers/maintenance.ts). */
  eventGrid: Handler;
  /** The Functions Event Grid trigger `maintenanceEvents` (app.ts). */
  eventGridTrigger: (event: unknown, context: InvocationContext) => Promise<void>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const claims = new ClaimIndexCache(deps.store, deps.settings.QUIESCE_POLICY, deps.clock);
  const intake = createPublishedIntake(deps, claims, (cluster, keys) =>
    deps.controlPlane.followUp(cluster, policyFor(deps.settings.QUIESCE_POLICY, cluster), keys),
  );
  return {
    report: withStoreErrors("report", reportHandler(deps)),
    // Conditional GETs: the status page polls these with If-None-Match.
    status: conditional(withStoreErrors("status", statusHandler(deps))),
    cluster: conditional(withStoreErrors("cluster", clusterHandler(deps))),
    event: conditional(withStoreErrors("event", eventHandler(deps))),
    alerts: withStoreErrors("alerts", alertsHandler(deps)),
    hold: withStoreErrors("hold", operatorHandler(deps, "hold")),
    release: withStoreErrors("release", operatorHandler(deps, "release")),
    forceApprove: withStoreErrors("force-approve", operatorHandler(deps, "forceApprove")),
    forceGate: withStoreErrors("force-gate", operatorHandler(deps, "forceGate")),
    page: pageHandler(deps),
    me: meHandler(deps),
    sweep: createSweep(deps, createBackstop(deps, claims, intake)),
    eventGrid: withStoreErrors("maintenance/eventgrid", eventGridWebhookHandler(deps, intake)),
    eventGridTrigger: eventGridTriggerHandler(deps, intake),
  };
}
