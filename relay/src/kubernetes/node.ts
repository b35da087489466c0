import type { Clock, Result } from "@quiesce/protocol";
import type { Logger } from "../log";
import type { KarpenterSpot } from "../options";
import { KubeRefused, type KubernetesApi } from "./client";
import type { NodePatch } from "./marks";
import { nodeOfVm } from "./names";
import type { NodeInfo } from "./objects";

/**
 * The node under this VM, by spec.providerID. Listed afresh at every lookup (the API cannot select
 * nodes by it), never remembered by name: a second Node object with the same providerID may have
 * registered since, and only the whole list can show that the match is still the only one.
 */
export class NodeFinder {
  constructor(
    private readonly api: KubernetesApi,
    private readonly resourceId: string,
  ) {}

  /** The node now; undefined when none has this VM's providerID; an error when several have. */
  async find(): Promise<Result<NodeInfo | undefined>> {
    return nodeOfVm(await this.api.listNodes(), this.resourceId);
  }
}

/** Tries a decided patch; on 409 reads the node again and decides again (a few times). */
export async function patchDecided(
  api: KubernetesApi,
  node: NodeInfo,
  decide: (n: NodeInfo) => NodePatch | null,
): Promise<{ node: NodeInfo; patched: boolean }> {
  let current = node;
  for (let attempt = 1; ; attempt++) {
    const patch = decide(current);
    if (!patch) return { node: current, patched: false };
    try {
      return { node: await api.patchNode(current.name, patch), patched: true };
    } catch (e) {
      if (!(e instanceof KubeRefused && e.refusal.code === 409) || attempt >= 5) throw e;
      current = await api.readNode(current.name);
    }
  }
}

export interface KubernetesHookContext {
  readonly api: KubernetesApi;
  readonly finder: NodeFinder;
  readonly eventId: string;
  readonly deadlineMs: number;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly log: Logger;
  /** How often the drain lists the node's pods again. */
  readonly pollMs: number;
  /**
   * An advisory event's (a Spot rebalance recommendation's) early drain: pods are evicted with
   * their own grace periods, none shortened to meet the deadline (nothing happens at its
   * NotBefore). The deadline still ends the wait.
   */
  readonly gentle?: boolean;
  /** The event's type and QUIESCE_KUBERNETES_KARPENTER_SPOT, for the drain to step aside. */
  readonly spot?: { readonly eventType: string; readonly policy: KarpenterSpot };
}
