import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { type ArmError, errorEnvelope } from "./armError";
import type { ArmClient } from "./client";
import { armPath } from "./resourceId";
import { type AcknowledgeScope, scopePath } from "./scope";

/**
 * Approving a scheduled event through the Maintenance resource provider instead of a VM's IMDS:
 * "Azure treats an approval request from either endpoint as meaning that the event can start"
 * (scheduled-events overview). Like a `StartRequests` post, it starts the event for every VM in
 * its `Resources`; deciding when that is allowed is the pipeline's job, not this file's.
 *
 * api-version 2025-11-01, the one GA version of `ScheduledEvents_Acknowledge`
 * (azure-rest-api-specs `Microsoft.Maintenance/Maintenance/stable/2025-11-01/Maintenance.json`);
 * the previews 2023-10-01, 2025-10-01, 2026-02-01 and 2026-06-01 describe the same request and
 * answers. Why this one: docs/control-plane.md "Which api-version".
 */
export const MAINTENANCE_API_VERSION = "2025-11-01";

/** 200 `{"value":"Successfully Approved"}` in the spec's example; the text is opaque (PowerShell's help shows another). */
const Approved = z.looseObject({ value: z.string().optional() }).optional();

export interface Acknowledged {
  status: number;
  /** The RP's own words ("Successfully Approved"), when it sent any. */
  value?: string;
  attempts: number;
}

/**
 * POST …/providers/Microsoft.Compute/{type}/{name}/providers/Microsoft.Maintenance/
 * scheduledevents/{eventId}/acknowledge, no body. Approved only on a 2xx whose body carries no
 * error: the RP answers 207 with an error body (`InvalidScheduledEventId`, a per-event detail)
 * for an acknowledge it did not do. A retried call whose first attempt did land can be refused
 * (the event already started): the caller reads that against the event's state.
 */
export async function acknowledgeScheduledEvent(
  arm: ArmClient,
  scope: AcknowledgeScope,
  eventId: string,
): Promise<Result<Acknowledged, ArmError>> {
  const answer = await arm.request({
    method: "POST",
    path: `${scopePath(scope)}${armPath("providers", "Microsoft.Maintenance", "scheduledevents", eventId, "acknowledge")}`,
    apiVersion: MAINTENANCE_API_VERSION,
    schema: z.unknown(),
    operation: "acknowledge",
  });
  if (!answer.ok) return answer;
  return readAcknowledgeAnswer(
    answer.value.status,
    answer.value.body,
    eventId,
    answer.value.attempts,
  );
}

/**
 * A 2xx answer read for what it says: an error in the body (either case of names), or any 207,
 * is a refusal with the code of the detail that names this event (else the only detail, else
 * the body's own code); anything else must be the approval's `{"value": …}` or nothing.
 */
export function readAcknowledgeAnswer(
  status: number,
  body: unknown,
  eventId: string,
  attempts: number,
): Result<Acknowledged, ArmError> {
  const refused = errorEnvelope(body);
  if (refused || status === 207) {
    const details = refused?.details ?? [];
    const detail =
      details.find((d) => d.target?.toLowerCase() === eventId.toLowerCase()) ??
      (details.length === 1 ? details[0] : undefined);
    const code = detail?.code ?? refused?.code ?? "MultiStatusResponse";
    const message =
      detail?.message ||
      refused?.message ||
      `ARM answered ${status} with ${refused ? `error ${refused.code} and no message` : "no error body"}: not acknowledged`;
    return { ok: false, error: { status, code, message, attempts } };
  }
  const approved = Approved.safeParse(body);
  if (!approved.success)
    return {
      ok: false,
      error: {
        status,
        code: "InvalidResponse",
        message: `acknowledge: ARM answered ${status} with a body that is neither an approval nor an error`,
        attempts,
      },
    };
  const value = approved.data?.value;
  return { ok: true, value: { status, attempts, ...(value !== undefined ? { value } : {}) } };
}
