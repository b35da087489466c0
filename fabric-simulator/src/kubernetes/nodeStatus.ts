import { z } from "zod";
import { readNodePatch } from "./nodePatch";
import { READY, renderNode } from "./render";
import { invalid, ok } from "./status";
import type { KubeAnswer, KubeNode, KubeNodeCondition, KubeWorld } from "./types";

/**
 * PATCH /api/v1/nodes/{name}/status: the node's `status.conditions`, which is how a maintenance
 * controller writes the KEP-5683 lifecycle conditions (DrainInProgress, Drained,
 * MaintenancePlanned, MaintenanceInProgress) or any other. A strategic merge patch merges the
 * conditions by `type` (NodeStatus.conditions' patchMergeKey), so a patch of one type leaves the
 * others as they are; a merge patch replaces the whole list, as it does on the real server. A
 * `metadata.resourceVersion` in the patch is a precondition (409). The kubelet's Ready stays as
 * it is, and nothing else may change (the real server ignores a spec change on the subresource;
 * the stand-in refuses it, so a client that sends one finds out).
 */

const Condition = z.looseObject({
  type: z.string().min(1),
  status: z.string().min(1),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastHeartbeatTime: z.iso.datetime({ offset: true }).optional(),
  lastTransitionTime: z.iso.datetime({ offset: true }).optional(),
});

const Patched = z.looseObject({
  metadata: z.looseObject({ resourceVersion: z.string().optional() }),
  status: z.looseObject({ conditions: z.array(Condition).optional() }),
});

/** Everything but the conditions and the resourceVersion: must come back unchanged. */
const unmodelled = (doc: unknown): string => {
  const d = structuredClone(doc) as {
    metadata?: Record<string, unknown>;
    status?: Record<string, unknown>;
  };
  delete d.metadata?.resourceVersion;
  delete d.status?.conditions;
  return JSON.stringify(d);
};

const sameCondition = (a: KubeNodeCondition | undefined, b: KubeNodeCondition) =>
  JSON.stringify(a) === JSON.stringify(b);

const pick = (c: z.infer<typeof Condition>): KubeNodeCondition => ({
  type: c.type,
  status: c.status,
  ...(c.reason !== undefined ? { reason: c.reason } : {}),
  ...(c.message !== undefined ? { message: c.message } : {}),
  ...(c.lastHeartbeatTime !== undefined ? { lastHeartbeatTime: c.lastHeartbeatTime } : {}),
  ...(c.lastTransitionTime !== undefined ? { lastTransitionTime: c.lastTransitionTime } : {}),
});

export function patchNodeStatus(
  world: KubeWorld,
  name: string,
  contentType: string,
  text: string,
): { world: KubeWorld; answer: KubeAnswer } {
  const read = readNodePatch(world, name, contentType, text, {
    schema: Patched,
    mergeKeys: { "status.conditions": "type" },
    unmodelled,
    onlyChanges: "the stand-in only lets a PATCH of nodes/status change status.conditions",
  });
  if (!read.ok) return { world, answer: read.answer };
  const { node, data } = read;
  const refuse = (message: string) => ({ world, answer: invalid("nodes", name, message) });
  const conditions = (data.status.conditions ?? []).map(pick);
  const types = conditions.map((c) => c.type);
  if (new Set(types).size !== types.length)
    return refuse("status.conditions: the stand-in keeps one condition of each type");
  if (
    !sameCondition(
      conditions.find((c) => c.type === READY.type),
      READY,
    )
  )
    return refuse("status.conditions: the stand-in keeps the kubelet's Ready condition as it is");
  const next: KubeNode = {
    ...node,
    conditions: conditions.filter((c) => c.type !== READY.type),
    resourceVersion: world.resourceVersion + 1,
  };
  return {
    world: {
      ...world,
      resourceVersion: next.resourceVersion,
      nodes: { ...world.nodes, [name]: next },
    },
    answer: ok(renderNode(next)),
  };
}
