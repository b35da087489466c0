import { isAdvisory, type ScheduledEvent } from "@quiesce/protocol/imds";
import { type KarpenterSpot, settingName } from "../options";
import type { NodeInfo } from "./objects";

/**
 * Beside Karpenter (AKS Node Auto Provisioning). Karpenter labels every node it provisions with
 * its NodePool (`karpenter.sh/nodepool`, a label its CRDs reserve: Azure/karpenter-provider-azure
 * pkg/apis/crds/karpenter.sh_nodepools.yaml), and on AKS it repairs a Spot node at once when the
 * node condition `PreemptionScheduled` turns True (toleration 0, pkg/cloudprovider/
 * cloudprovider.go, at 352646f), replacing it with its own drain. On such a node an operator
 * chooses (the relay setting KUBERNETES_KARPENTER_SPOT):
 * - `coordinate` (the default): Quiesce drains as on any node, and Karpenter's repair, if its
 *   node agent reports the same Preempt, runs beside it;
 * - `stepAside`: for a Preempt or a rebalance recommendation Quiesce neither cordons nor evicts,
 *   and reports the VM drained at once (so an event naming it is never held for it), leaving
 *   the node to Karpenter. Every other event type (Freeze, Reboot, Redeploy) is drained as usual:
 *   Karpenter does not act on those.
 */
export const NODEPOOL_LABEL = "karpenter.sh/nodepool";

/** Spot's own signals: the eviction and the raised risk of one. */
const SPOT_SIGNAL = (e: Pick<ScheduledEvent, "EventType">) =>
  e.EventType === "Preempt" || isAdvisory(e);

/** Why the drain steps aside on this node for this event, or undefined when it drains. */
export function stepsAside(
  node: NodeInfo,
  event: Pick<ScheduledEvent, "EventType">,
  policy: KarpenterSpot,
): string | undefined {
  const nodePool = node.labels[NODEPOOL_LABEL];
  if (policy !== "stepAside" || nodePool === undefined || !SPOT_SIGNAL(event)) return undefined;
  return `stepped aside: node ${node.name} is Karpenter's (${NODEPOOL_LABEL}=${nodePool}), which handles its ${event.EventType}; not cordoned, nothing evicted (${settingName("KUBERNETES_KARPENTER_SPOT")}=stepAside)`;
}
