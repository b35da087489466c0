import { timingSafeEqual } from "node:crypto";
import type { InvocationContext } from "@azure/functions";
import {
  MAX_DELIVERY_BYTES,
  type PatchRunEvent,
  parseEventGridDelivery,
  parseWebhookValidationRequest,
  type RejectedEvent,
  webhookValidationHeaders,
} from "@quiesce/protocol/published";
import type { PatchRunSummary } from "../guestPatching/service";
import { invocationLogger } from "../log";
import { settingName } from "../options";
import type { PublishedIntake } from "../published/intake";
import { type Handler, jsonBody } from "./compose";
import type { HandlerDeps } from "./deps";
import { json, problem } from "./http";

/**
 * Event Grid deliveries of the events Azure publishes off the VM (docs/control-plane.md,
 * "Delivery protocol"):
 * - POST /api/maintenance/eventgrid, a webhook for hosts without the Event Grid trigger (the
 *   local host): the subscription carries QUIESCE_EVENT_GRID_KEY as `?code=`; bodies up to
 *   MAX_DELIVERY_BYTES (Event Grid's batches, not the relay report limit); Event Grid's
 *   validation event is answered with `{validationResponse}`, CloudEvents' OPTIONS handshake
 *   with `WebHook-Allowed-Origin`. Events that cannot be used are counted and named, the others
 *   applied, and the delivery answered 400 so that Event Grid dead-letters it (it never retries a
 *   400); a store failure is a 503 (it retries the whole delivery; applying again is idempotent);
 * - the `maintenanceEvents` Event Grid trigger in Azure (app.ts): the host does the handshake
 *   and authenticates Event Grid; an event that cannot be used, like a failure, is thrown, so
 *   the host has Event Grid retry it and then dead-letter (or drop) it.
 * The route and the function name keep Azure's word (its `MaintenanceResources` topic): every
 * existing Event Grid subscription points at them.
 */

const sameKey = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Never silent: each rejected event is a log line naming it, and the count a metric. */
function recordRejected(
  deps: HandlerDeps,
  context: InvocationContext,
  channel: "webhook" | "trigger",
  rejected: readonly RejectedEvent[],
): void {
  if (rejected.length === 0) return;
  deps.telemetry.eventGridRejected(channel, rejected.length);
  const log = invocationLogger(context, { channel });
  for (const r of rejected) log.error("Event Grid: event not used", { id: r.id, reason: r.reason });
}

export function eventGridWebhookHandler(deps: HandlerDeps, intake: PublishedIntake): Handler {
  return async (request, context) => {
    const { enabled, eventGridKey: key } = deps.options.controlPlaneEvents;
    if (!enabled || !key)
      return problem(
        404,
        `Published events are off (${settingName("CONTROL_PLANE_EVENTS")}, ${settingName("EVENT_GRID_KEY")})`,
      );
    // Both Event Grid's POSTs and CloudEvents' OPTIONS go to the exact registered URL, key included.
    const code = request.query.get("code") ?? "";
    if (!sameKey(code, key))
      return problem(401, "missing or wrong ?code= for the Event Grid webhook");
    if (request.method.toUpperCase() === "OPTIONS") {
      const asked = parseWebhookValidationRequest((name) => request.headers.get(name));
      if (!asked.ok) return problem(400, asked.error, { allow: "POST, OPTIONS" });
      invocationLogger(context).info("CloudEvents webhook validation answered", {
        origin: asked.value.origin,
      });
      return { status: 200, headers: webhookValidationHeaders(asked.value) };
    }
    const parsed = await jsonBody(
      request,
      MAX_DELIVERY_BYTES,
      parseEventGridDelivery,
      "Event Grid delivery",
      "Event Grid's delivery limit",
    );
    if (!parsed.ok) return parsed.error;
    const delivery = parsed.value;
    if (delivery.kind === "validation") {
      invocationLogger(context).info("Event Grid subscription validation answered", {
        code: `${delivery.validationCode.slice(0, 8)}…`,
      });
      return json(200, { validationResponse: delivery.validationCode });
    }
    // The usable events first: a 400 then dead-letters the whole delivery, and a later
    // redelivery of it applies them again without changing anything.
    const summary = await intake(delivery.observations);
    const patching = await patchRuns(deps, delivery.patchRuns);
    recordRejected(deps, context, "webhook", delivery.rejected);
    const answer = {
      ...summary,
      ...(patching ? { patchRuns: patching } : {}),
      ignored: delivery.ignored + (delivery.patchRuns && !patching ? delivery.patchRuns.length : 0),
      rejected: delivery.rejected,
    };
    // A cancel a pre-maintenance event asked for did not land: Event Grid retries the delivery
    // (a 503 is retried), and the next copy tries again while the cut-off allows.
    if (patching && patching.failed > 0)
      return json(503, { error: "a patch run's cancel did not land; retry", ...answer });
    if (delivery.rejected.length === 0) return json(200, answer);
    return json(400, {
      error: `invalid Event Grid delivery: ${delivery.rejected.length} event(s) not used (${delivery.rejected[0]?.reason})`,
      ...answer,
    });
  };
}

/** Update Manager's pre- and post-maintenance events, when this coordinator keeps them. */
async function patchRuns(
  deps: HandlerDeps,
  runs: readonly PatchRunEvent[] | undefined,
): Promise<PatchRunSummary | null> {
  if (!runs || runs.length === 0 || !deps.guestPatching) return null;
  return deps.guestPatching.intake(runs);
}

/** The Azure Functions Event Grid trigger's handler: one event per invocation. */
export function eventGridTriggerHandler(deps: HandlerDeps, intake: PublishedIntake) {
  return async (event: unknown, context: InvocationContext): Promise<void> => {
    if (!deps.options.controlPlaneEvents.enabled) {
      invocationLogger(context).warn(
        `Event Grid delivery ignored: ${settingName("CONTROL_PLANE_EVENTS")} is off`,
      );
      return;
    }
    const parsed = parseEventGridDelivery([event]);
    if (parsed.ok && parsed.value.kind === "validation") return; // the host answers it itself
    const delivery = parsed.ok && parsed.value.kind === "events" ? parsed.value : null;
    const rejected: RejectedEvent[] = delivery
      ? delivery.rejected
      : [{ index: 0, id: null, reason: parsed.ok ? "not a delivery" : parsed.error }];
    const summary = delivery ? await intake(delivery.observations) : null;
    const patching = delivery ? await patchRuns(deps, delivery.patchRuns) : null;
    recordRejected(deps, context, "trigger", rejected);
    if (patching && patching.failed > 0)
      throw new Error("Event Grid event: a patch run's cancel did not land (retried)");
    // A failed invocation is what has Event Grid retry, then dead-letter (or drop) the event:
    // a release that reads it may come within its 24 hours; the metric says it happened.
    if (rejected.length > 0)
      throw new Error(`Event Grid event not used: ${rejected.map((r) => r.reason).join("; ")}`);
    if (summary && (deps.options.debug || summary.applied > 0))
      invocationLogger(context).info("Event Grid: delivery applied", {
        applied: summary.applied,
        unchanged: summary.unchanged,
        unclaimed: summary.unclaimed,
      });
  };
}
