import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import type { ArmError } from "./armError";
import type { ArmClient, ArmResponse } from "./client";
import { armPath } from "./resourceId";
import { type AcknowledgeScope, scopePath } from "./scope";

/**
 * Approving a scheduled event through the Maintenance resource provider instead of a VM's IMDS:
 * "Azure treats an approval request from either endpoint as meaning that the event can start"
 * (scheduled-events overview). Like a `StartRequests` post, it starts the event for every VM in
 * its `Resources`; deciding when that is allowed is the pipeline's job, not this file's.
 *
 * api-version 2025-10-01-preview: no GA version of `ScheduledEvents_Acknowledge` exists (the
 * spec's versions are 2023-10-01-preview, 2025-10-01-preview and 2026-06-01-preview); Az.Maintenance
 * 1.7.0 (Approve-AzScheduledEvent) moved every API to 2025-10-01-preview, and that spec also adds
 * the list form (`…/scheduledevents` with `{"value":[ids]}`), so one version serves both.
 */
export const MAINTENANCE_API_VERSION = "2025-10-01-preview";

/** 200 `{"value":"Successfully Approved"}` in the spec's example; the text is opaque (PowerShell's help shows another). */
const Acknowledged = z.looseObject({ value: z.string().optional() }).optional();

/**
 * POST …/providers/Microsoft.Compute/{type}/{name}/providers/Microsoft.Maintenance/
 * scheduledevents/{eventId}/acknowledge, no body. A retried call whose first attempt did land
 * can be refused (the event already started): the caller reads that against the event's state.
 */
export function acknowledgeScheduledEvent(
  arm: ArmClient,
  scope: AcknowledgeScope,
  eventId: string,
): Promise<Result<ArmResponse<{ value?: string } | undefined>, ArmError>> {
  return arm.request({
    method: "POST",
    path: `${scopePath(scope)}${armPath("providers", "Microsoft.Maintenance", "scheduledevents", eventId, "acknowledge")}`,
    apiVersion: MAINTENANCE_API_VERSION,
    schema: Acknowledged,
    operation: "acknowledge",
  });
}
