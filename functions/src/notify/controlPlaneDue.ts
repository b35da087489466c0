import type { Policy } from "@quiesce/protocol/policy";
import type { RegionSupport } from "../store/regionSupport";
import { iso, type Notification } from "./due";

/** The place the alert is about: a group of relays, or an agentless cluster's Azure resource. */
export interface RelyingPlace {
  kind: string;
  name: string;
  /** Why it needs the control plane: "agentless" or "noLiveRelay". */
  because: "agentless" | "noLiveRelay";
}

/**
 * A group relies on approval through Azure Resource Manager (agentless, or no live relay while
 * the policy falls back to the control plane) in a region where Azure answers the acknowledge
 * `405 NotImplemented`: its events will start at NotBefore, drained or not. Once per place and
 * episode (the region's `since`); null when the cluster's policy does not notify this kind.
 */
export function controlPlaneUnavailableNotification(
  cluster: string,
  place: RelyingPlace,
  region: RegionSupport,
  policy: Policy,
): Notification | null {
  if (!policy.notify.on.includes("controlPlaneUnavailable")) return null;
  const where = place.name ? `${place.kind} ${place.name}` : place.kind;
  const why =
    place.because === "agentless"
      ? "its VMs have no relay (agentless), so only the control plane can approve their events"
      : "no relay of it is live, so only the control plane could approve its events";
  return {
    key: `place|${place.kind}|${place.name.toLowerCase()}|${region.region}|${region.since}|controlPlaneUnavailable`,
    cluster,
    kind: "controlPlaneUnavailable",
    severity: "critical",
    at: region.since,
    title: `${cluster}: approval through Azure Resource Manager is not available for ${where}`,
    text: `Azure does not acknowledge scheduled events through Azure Resource Manager in ${region.region} (${region.detail}, learnt by ${region.how === "probe" ? "the coordinator's probe" : "an acknowledge"}), and ${why}. Its events start at NotBefore, drained or not. Install a relay on its VMs, or accept NotBefore.`,
    facts: [
      { name: "Group", value: where },
      { name: "Region", value: region.region },
      { name: "Since", value: iso(region.since) },
      { name: "Learnt by", value: region.how },
    ],
  };
}
