import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { alertsHandler } from "./alerts";
import type { HandlerDeps } from "./deps";
import { operatorHandler } from "./operator";
import { reportHandler } from "./report";
import { clusterHandler, eventHandler, statusHandler } from "./status";
import { withStoreErrors } from "./storeErrors";
import { createSweep, type SweepSummary } from "./sweep";

export { type Clock, type HandlerDeps, systemClock } from "./deps";
export { createSweep, type SweepSummary, sweepTimerHandler } from "./sweep";

/** What every HTTP handler is: plain async functions, callable directly with a real HttpRequest. */
export type Handler = (
  request: HttpRequest,
  context: InvocationContext,
) => Promise<HttpResponseInit>;

export interface Handlers {
  report: Handler;
  status: Handler;
  cluster: Handler;
  event: Handler;
  alerts: Handler;
  hold: Handler;
  release: Handler;
  forceApprove: Handler;
  sweep: (context?: InvocationContext) => Promise<SweepSummary>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    report: withStoreErrors("report", reportHandler(deps)),
    status: withStoreErrors("status", statusHandler(deps)),
    cluster: withStoreErrors("cluster", clusterHandler(deps)),
    event: withStoreErrors("event", eventHandler(deps)),
    alerts: withStoreErrors("alerts", alertsHandler(deps)),
    hold: withStoreErrors("hold", operatorHandler(deps, "hold")),
    release: withStoreErrors("release", operatorHandler(deps, "release")),
    forceApprove: withStoreErrors("force-approve", operatorHandler(deps, "forceApprove")),
    sweep: createSweep(deps),
  };
}
