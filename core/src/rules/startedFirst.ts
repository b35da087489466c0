import type { Policy } from "@quiesce/protocol/policy";
import { isAdvisoryEvent } from "../model/eventTypes";
import type { EventRecord } from "../model/state";

/**
 * Why an event was first seen already Started (no Scheduled notice). Azure skips Scheduled for
 * an actual hardware failure, and, since `scheduledEventsPolicy.userInitiatedReboot/Redeploy.
 * automaticallyApprove`, for a user's own reboot or redeploy ("only events with EventStatus:Started
 * and EventStatus:Completed are created": azure-compute-docs scheduled-events-overview.md,
 * 05/01/2026). The first is an incident; the second is someone's restart going as they asked.
 * `EventSource` tells them apart (User / Platform); when a document does not carry it, the policy
 * the operator declared for the cluster's groups does.
 */
export type StartedFirstCause = "userInitiated" | "unannounced";

export function startedFirstCause(e: EventRecord, policy: Policy): StartedFirstCause | null {
  // An advisory event takes nothing out of service: first seen Started, it is no incident.
  if (!e.firstSeenStarted || isAdvisoryEvent(e)) return null;
  if (e.eventSource === "User") return "userInitiated";
  if (e.eventSource !== null) return "unannounced";
  const p = policy.scheduledEventsPolicy;
  const auto =
    (e.eventType === "Reboot" && p.userInitiatedReboot?.automaticallyApprove) ||
    (e.eventType === "Redeploy" && p.userInitiatedRedeploy?.automaticallyApprove);
  return auto ? "userInitiated" : "unannounced";
}
