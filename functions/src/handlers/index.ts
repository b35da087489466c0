import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { conditional } from "./conditional";
import type { HandlerDeps } from "./deps";
import { operatorHandler } from "./operator";
import { reportHandler } from "./report";
import { clusterHandler, eventHandler, statusHandler } from "./status";
import { createSweep, type SweepSummary } from "./sweep";
import { meHandler, pageHandler } from "./ui";

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
  hold: Handler;
  release: Handler;
  forceApprove: Handler;
  page: Handler;
  me: Handler;
  sweep: (context?: InvocationContext) => Promise<SweepSummary>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    report: reportHandler(deps),
    // Conditional GETs: the status page polls these with If-None-Match.
    status: conditional(statusHandler(deps)),
    cluster: conditional(clusterHandler(deps)),
    event: conditional(eventHandler(deps)),
    hold: operatorHandler(deps, "hold"),
    release: operatorHandler(deps, "release"),
    forceApprove: operatorHandler(deps, "forceApprove"),
    page: pageHandler(deps),
    me: meHandler(deps),
    sweep: createSweep(deps),
  };
}
