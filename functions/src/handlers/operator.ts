import { type OperatorAction, OperatorActionError, type ReplacedOverride } from "@quiesce/core";
import { ClusterName } from "@quiesce/protocol";
import type { OperatorAnswer } from "@quiesce/protocol/status";
import { z } from "zod";
import { invocationLogger } from "../log";
import { runOperatorAction } from "../pipeline/operatorAction";
import { readEventDetail } from "../status/eventDetail";
import { StatusQueries } from "../store";
import { type Handler, jsonBody, parsedBy, withAuth } from "./compose";
import type { HandlerDeps } from "./deps";
import { json, problem } from "./http";
import { findEvent } from "./status";

const OPERATOR_BODY_LIMIT = 16_384;

export const OperatorRequest = z.strictObject({
  cluster: ClusterName.optional(),
  reason: z.string().trim().min(1, "reason is required").max(512),
  /** How long a hold or force-approve lasts; ignored by release. */
  ttlMinutes: z.number().int().min(1).max(1440).default(60),
});

/**
 * hold and force-approve: `replace` lets one take the place of another operator's override of
 * the other kind (refused with 409 otherwise, naming it); a release takes none.
 */
export const OverrideRequest = OperatorRequest.extend({ replace: z.boolean().default(false) });

/** force-gate names the gate it forces past. */
export const ForceGateRequest = OperatorRequest.extend({
  gate: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "gate: the name of one of the policy's gates"),
});

export type OperatorKind = OperatorAction["kind"];

/**
 * The answer to each refusal of the core (OperatorActionError): a refusal is the event's state
 * at odds with the action, never a fault of the request's shape, so all but notFound are 409.
 */
const REFUSAL_STATUS: Record<OperatorActionError["code"], number> = {
  notFound: 404,
  ended: 409,
  unreadable: 409,
  conflict: 409,
  advisory: 409,
};

/**
 * POST /api/events/{eventId}/hold | release | force-approve | force-gate (body names the gate). Audited: the history of the event
 * gets a row naming who did it and why, besides the transition the core records
 * (pipeline/operatorAction.ts), which names any override replaced. Answers with the event's
 * detail as it now stands and `replaced`; 409 for a hold over another operator's force-approve
 * (or the reverse) without `replace: true`, and for a hold, force-approve or force-gate of an
 * advisory event (a Spot rebalance recommendation: nothing to approve), nothing written.
 */
export function operatorHandler(deps: HandlerDeps, kind: OperatorKind): Handler {
  const queries = new StatusQueries(deps.store.tables, deps.store.memberRows);
  return withAuth(deps, "operator", async (request, context, principal) => {
    const parsed = await jsonBody(
      request,
      OPERATOR_BODY_LIMIT,
      parsedBy(
        kind === "forceGate"
          ? ForceGateRequest
          : kind === "release"
            ? OperatorRequest
            : OverrideRequest,
      ),
      "request",
    );
    if (!parsed.ok) return parsed.error;
    const { cluster: bodyCluster, reason, ttlMinutes } = parsed.value;
    const body: Record<string, unknown> = parsed.value;
    const gate = typeof body.gate === "string" ? body.gate : "";
    const replace = body.replace === true;

    const found = await findEvent(
      deps,
      request.params.eventId,
      request.query.get("cluster") ?? bodyCluster,
    );
    if (!found.ok) return found.error;
    const { cluster, key } = found.value;
    const by = principal.display;
    const ttlSeconds = ttlMinutes * 60;
    const action: OperatorAction =
      kind === "release"
        ? { kind, by, reason }
        : kind === "forceGate"
          ? { kind, gate, by, reason, ttlSeconds }
          : { kind, by, reason, ttlSeconds, ...(replace ? { replace } : {}) };
    let replaced: ReplacedOverride | null;
    try {
      ({ replaced } = await runOperatorAction(deps, cluster, key, action));
    } catch (e) {
      if (e instanceof OperatorActionError) return problem(REFUSAL_STATUS[e.code], e.message);
      throw e; // store failures: withStoreErrors
    }
    invocationLogger(context, { cluster, event: key }).info(`operator ${kind}`, {
      by,
      reason,
      ...(replaced ? { replaced: `${replaced.kind} by ${replaced.by}` } : {}),
    });
    const detail = await readEventDetail(deps, queries, cluster, key);
    if (!detail) return problem(404, `event ${request.params.eventId} is no longer known`);
    const answer: OperatorAnswer = {
      ...detail,
      replaced: replaced && {
        ...replaced,
        at: new Date(replaced.at).toISOString(),
        expiresAt: new Date(replaced.expiresAt).toISOString(),
      },
    };
    return json(200, answer);
  });
}
