import { resourceGroupId, subscriptionId } from "../arm/ids";
import { refused } from "../model/controlResult";
import { okValue, type Route } from "./route";

/**
 * Update Manager's scheduled runs (maintenance/patchRuns.ts): start one (its pre-maintenance
 * event goes out through Event Grid at once), list them, finish one (its post-event). The cancel
 * is ARM's (`PUT …/applyUpdates/{run}`), not a control.
 */
export const patchRunRoutes: Route[] = [
  { method: "GET", pattern: /^\/arm\/patchRuns$/, run: ({ arm }) => okValue(arm.patchRuns.list()) },
  {
    method: "POST",
    pattern: /^\/arm\/patchRuns$/,
    status: 201,
    run: async ({ arm, body }) => {
      const t = arm.topology();
      return arm.patchRuns.start(
        await body(),
        { subscriptionId: subscriptionId(t), resourceGroupId: resourceGroupId(t) },
        arm.now().simMs,
      );
    },
  },
  {
    method: "POST",
    pattern: /^\/arm\/patchRuns\/finish$/,
    run: async ({ arm, body }) => {
      const b = (await body()) as { correlationId?: unknown } | null;
      if (typeof b?.correlationId !== "string") return refused(400, "give correlationId");
      return arm.patchRuns.finish(b.correlationId, subscriptionId(arm.topology()), arm.now().simMs);
    },
  },
];
