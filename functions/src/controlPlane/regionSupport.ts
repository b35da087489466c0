import { acknowledgeRefusal } from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import type { ControlPlaneApprovalView } from "@quiesce/protocol/status";
import type { RegionSupport, SupportSource } from "../store/regionSupport";

export type { RegionSupport, SupportSource } from "../store/regionSupport";

/**
 * Whether the Maintenance RP acknowledges scheduled events in a region (docs/control-plane.md,
 * "Where Azure offers approval"). Azure answers an acknowledge `405 NotImplemented` "This
 * operation is not supported in the region of resource provided" where it does not (the Azure
 * CLI's response tests, test/contracts/fixtures/arm-acknowledge). Pure: what an answer says
 * about the region, and how a region's record moves. The shell probes and stores (regionWatch.ts).
 */

/**
 * What an acknowledge answer says about its region: the RP refusing the operation there
 * (405 / NotImplemented) says "not available"; an approval, or a refusal that only the RP serving
 * the region can give (it does not know the event, the event cannot be acknowledged in its state),
 * says "available"; anything else (no answer, throttled, not authorized, no such scope, a bad
 * request) says nothing about the region.
 */
export function supportFromAnswer(
  answer: { ok: true } | { ok: false; status: number; code: string },
): ControlPlaneApprovalView["availability"] {
  if (answer.ok) return "available";
  const kind = acknowledgeRefusal(answer).kind;
  if (kind === "notSupportedInRegion") return "notAvailable";
  if (kind === "eventNotFound" || kind === "conflict") return "available";
  return "unknown";
}

/** The region's record after an answer; unchanged (null) when the answer says nothing. */
export function nextSupport(
  prev: RegionSupport | undefined,
  region: string,
  answer: { ok: true } | { ok: false; status: number; code: string },
  how: SupportSource,
  now: number,
): RegionSupport | null {
  const availability = supportFromAnswer(answer);
  if (availability === "unknown") return null;
  const detail = answer.ok ? "approved" : `${answer.status || "request"} ${answer.code}`;
  const since = prev && prev.availability === availability ? prev.since : now;
  return { region: region.toLowerCase(), availability, since, checkedAt: now, how, detail };
}

/**
 * Whether a group needs the control plane to approve its events: an agentless cluster's (no
 * relay can), or a relay group with no live relay while the policy falls back to the control
 * plane. A group whose policy turns the control plane off never relies on it.
 */
export function reliesOnControlPlane(
  policy: Policy,
  group: { agentless: boolean; liveMembers: number },
): boolean {
  if (policy.controlPlaneApproval.mode !== "fallback") return false;
  return group.agentless ? policy.agentless.enabled : group.liveMembers === 0;
}

/** What the status API shows for a group in `region` (null: its region is not known yet). */
export function approvalView(
  region: string | null,
  record: RegionSupport | undefined,
  relies: boolean,
): ControlPlaneApprovalView {
  if (!region || !record)
    return { availability: "unknown", region, since: null, how: null, detail: null, relies };
  return {
    availability: record.availability,
    region,
    since: new Date(record.since).toISOString(),
    how: record.how,
    detail: record.detail,
    relies,
  };
}
