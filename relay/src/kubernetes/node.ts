import type { Clock } from "@quiesce/protocol";
import type { Logger } from "../log";
import { KubeRefused, type KubernetesApi } from "./client";
import type { NodePatch } from "./marks";
import { nodeOfVm } from "./names";
import type { NodeInfo } from "./objects";

/**
 * The node under this VM, found once per process by spec.providerID (the list is the only way:
 * the API cannot select nodes by it) and remembered, since a VM's node does not change; and
 * node patches that are re-read and re-decided when the node changed under them (409).
 */
export class NodeFinder {
  private name: string | undefined;

  constructor(
    private readonly api: KubernetesApi,
    private readonly resourceId: string,
  ) {}

  /** The node now, or undefined when no node has this VM's providerID. */
  async find(): Promise<NodeInfo | undefined> {
    if (this.name) {
      try {
        return await this.api.readNode(this.name);
      } catch (e) {
        if (!(e instanceof KubeRefused && e.refusal.code === 404)) throw e;
        this.name = undefined; // deleted and registered again: look it up afresh
      }
    }
    const node = nodeOfVm(await this.api.listNodes(), this.resourceId);
    this.name = node?.name;
    return node;
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
}
