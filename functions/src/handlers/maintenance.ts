import { timingSafeEqual } from "node:crypto";
import type { InvocationContext } from "@azure/functions";
import { type EventGridDelivery, parseEventGridDelivery } from "@quiesce/protocol/maintenance";
import type { IntakeSummary } from "../published/intake";
import { type Handler, jsonBody } from "./compose";
import type { HandlerDeps } from "./deps";
import { json, problem } from "./http";

/**
 * Event Grid deliveries of the events Azure publishes off the VM (docs/control-plane.md):
 * - POST /api/maintenance/eventgrid, a webhook for hosts without the Event Grid trigger (the
 *   local host): the subscription carries QUIESCE_EVENT_GRID_KEY as `?code=`; the validation
 *   handshake is answered with `{validationResponse}`; a malformed body is a 400 (Event Grid does
 *   not retry it: it never gets better); a store failure a 503 (it retries);
 * - the `maintenanceEvents` Event Grid trigger in Azure (app.ts): the host does the handshake
 *   and authenticates Event Grid; a failure is thrown, so the host has Event Grid retry.
 */
export type Intake = (
  observations: Extract<EventGridDelivery, { kind: "events" }>["observations"],
) => Promise<IntakeSummary>;

const sameKey = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export function eventGridWebhookHandler(deps: HandlerDeps, intake: Intake): Handler {
  return async (request, context) => {
    const key = deps.settings.QUIESCE_EVENT_GRID_KEY;
    if (!deps.settings.QUIESCE_CONTROL_PLANE_EVENTS || !key)
      return problem(
        404,
        "Event Grid intake is off (QUIESCE_CONTROL_PLANE_EVENTS, QUIESCE_EVENT_GRID_KEY)",
      );
    const code = request.query.get("code") ?? "";
    if (!sameKey(code, key))
      return problem(401, "missing or wrong ?code= for the Event Grid webhook");
    const parsed = await jsonBody(
      request,
      deps.settings.QUIESCE_MAX_BODY_BYTES,
      parseEventGridDelivery,
      "Event Grid delivery",
    );
    if (!parsed.ok) return parsed.error;
    const delivery = parsed.value;
    if (delivery.kind === "validation") {
      context.info(
        `Event Grid subscription validation answered (${delivery.validationCode.slice(0, 8)}…)`,
      );
      return json(200, { validationResponse: delivery.validationCode });
    }
    for (const p of delivery.problems)
      context.warn(`Event Grid: scheduled event not understood: ${p}`);
    const summary = await intake(delivery.observations);
    return json(200, { ...summary, ignored: delivery.ignored, problems: delivery.problems.length });
  };
}

/** The Azure Functions Event Grid trigger's handler: one event per invocation. */
export function eventGridTriggerHandler(deps: HandlerDeps, intake: Intake) {
  return async (event: unknown, context: InvocationContext): Promise<void> => {
    if (!deps.settings.QUIESCE_CONTROL_PLANE_EVENTS) {
      context.warn("Event Grid delivery ignored: QUIESCE_CONTROL_PLANE_EVENTS is off");
      return;
    }
    const parsed = parseEventGridDelivery([event]);
    if (!parsed.ok) {
      // Retrying cannot make it parse: log it and let the delivery succeed.
      context.error(`Event Grid delivery not understood: ${parsed.error}`);
      return;
    }
    if (parsed.value.kind !== "events") return; // the host answers the handshake itself
    for (const p of parsed.value.problems)
      context.warn(`Event Grid: scheduled event not understood: ${p}`);
    const summary = await intake(parsed.value.observations);
    if (deps.settings.QUIESCE_DEBUG || summary.applied > 0)
      context.info(
        `Event Grid: ${summary.applied} applied, ${summary.unchanged} unchanged, ${summary.unclaimed} unclaimed`,
      );
  };
}
