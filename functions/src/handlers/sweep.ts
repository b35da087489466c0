import type { InvocationContext, Timer } from "@azure/functions";
import { createSweep } from "../pipeline/sweep";
import type { HandlerDeps } from "./deps";

/** The sweep as a Functions timer handler (pipeline/sweep.ts does the work). */
export function sweepTimerHandler(deps: HandlerDeps) {
  const sweep = createSweep(deps);
  return async (_timer: Timer, context: InvocationContext): Promise<void> => {
    await sweep(context);
  };
}
