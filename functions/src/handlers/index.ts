import type { InvocationContext } from "@azure/functions";
import { createSweep, type SweepSummary } from "../pipeline/sweep";
import { alertsHandler } from "./alerts";
import type { Handler } from "./compose";
import { conditional } from "./conditional";
import type { HandlerDeps } from "./deps";
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
}

export function createHandlers(deps: HandlerDeps): Handlers {
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
    sweep: createSweep(deps),
  };
}
