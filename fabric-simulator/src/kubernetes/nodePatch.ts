import type { z } from "zod";
import { applyPatch, type MergeKeys } from "./patch";
import { renderNode } from "./render";
import { badRequest, conflict, invalid, notFound, unsupportedMediaType } from "./status";
import type { KubeAnswer, KubeNode, KubeWorld } from "./types";

/** How a route of a node reads its PATCH: the result's shape and what else must not change. */
export interface NodePatchRoute<T> {
  schema: z.ZodType<T>;
  /** strategic-merge keys of the lists this route merges (NodeStatus.conditions: `type`). */
  mergeKeys?: MergeKeys;
  /** the node without the fields the route lets change: must come back the same. */
  unmodelled: (doc: unknown) => string;
  /** the refusal when something else changed, naming what may. */
  onlyChanges: string;
}

/**
 * What PATCH /api/v1/nodes/{name} and its /status share, as the API server does it: the node must
 * exist, the patch must apply (415 for a media type it does not take, 400 when it does not
 * apply), the result must be a valid node (422), and a `metadata.resourceVersion` in the patch is
 * a precondition (409 when the node changed since). The stand-in also refuses (422) a change to a
 * field it does not model, so a client that sends one finds out. The route then builds the node.
 */
export function readNodePatch<T extends { metadata: { resourceVersion?: string | undefined } }>(
  world: KubeWorld,
  name: string,
  contentType: string,
  text: string,
  route: NodePatchRoute<T>,
): { ok: true; node: KubeNode; data: T } | { ok: false; answer: KubeAnswer } {
  const node = world.nodes[name];
  if (!node) return { ok: false, answer: notFound("nodes", name) };
  const before = renderNode(node);
  const patched = applyPatch(before, contentType, text, route.mergeKeys);
  if (!patched.ok) {
    const { unsupported, message } = patched.error;
    return { ok: false, answer: unsupported ? unsupportedMediaType(message) : badRequest(message) };
  }
  const after = route.schema.safeParse(patched.value);
  if (!after.success) {
    const message = after.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return { ok: false, answer: invalid("nodes", name, message) };
  }
  const rv = after.data.metadata.resourceVersion;
  if (rv !== undefined && rv !== String(node.resourceVersion))
    return { ok: false, answer: conflict("nodes", name) };
  if (route.unmodelled(patched.value) !== route.unmodelled(before))
    return { ok: false, answer: invalid("nodes", name, route.onlyChanges) };
  return { ok: true, node, data: after.data };
}
