import { z } from "zod";
import { evict } from "./disruption";
import { readNodePatch } from "./nodePatch";
import { isAlive } from "./pods";
import { renderList, renderNode, renderPod } from "./render";
import { matches, parseFieldSelector, parseLabelSelector } from "./selectors";
import { badRequest, notFound, ok } from "./status";
import type { KubeAnswer, KubeNode, KubePod, KubeWorld } from "./types";

/**
 * What each served route does to the world, pure: `(world, request, now) → (world, answer)`.
 * Reads return the world unchanged.
 */

export interface Listing {
  readonly fieldSelector: string | null;
  readonly labelSelector: string | null;
  readonly limit: string | null;
  readonly continue: string | null;
}

/** `limit` / `continue` paging: the token is the position to resume at, opaque to clients. */
function page<T>(items: T[], l: Listing): { items: T[]; next?: string } | string {
  const limit = l.limit === null ? 0 : Number(l.limit);
  if (!Number.isInteger(limit) || limit < 0) return "limit must be a non-negative integer";
  let start = 0;
  if (l.continue) {
    start = Number(Buffer.from(l.continue, "base64url").toString("utf8"));
    if (!Number.isInteger(start) || start < 0) return "the provided continue parameter is invalid";
  }
  if (limit === 0) return { items: items.slice(start) };
  const end = start + limit;
  return end < items.length
    ? { items: items.slice(start, end), next: Buffer.from(String(end)).toString("base64url") }
    : { items: items.slice(start) };
}

const nodeFields = (n: KubeNode) => ({
  "metadata.name": n.name,
  "spec.unschedulable": String(n.unschedulable),
});

const podFields = (p: KubePod) => ({
  "metadata.name": p.name,
  "metadata.namespace": p.namespace,
  "spec.nodeName": p.nodeName,
  "spec.restartPolicy": "Always",
  "spec.schedulerName": "default-scheduler",
  "spec.serviceAccountName": "default",
  "status.phase": p.phase,
});

export function listNodes(world: KubeWorld, l: Listing): KubeAnswer {
  const fields = parseFieldSelector("nodes", l.fieldSelector);
  if (!fields.ok) return badRequest(fields.error);
  const labels = parseLabelSelector(l.labelSelector);
  if (!labels.ok) return badRequest(labels.error);
  const all = Object.values(world.nodes)
    .filter((n) => matches(nodeFields(n), fields.value) && matches(n.labels, labels.value))
    .sort((a, b) => a.name.localeCompare(b.name));
  const p = page(all, l);
  if (typeof p === "string") return badRequest(p);
  return ok(
    renderList(
      "NodeList",
      world,
      p.items.map((n) => renderNode(n, false)),
      p.next,
    ),
  );
}

export function getNode(world: KubeWorld, name: string): KubeAnswer {
  const n = world.nodes[name];
  return n ? ok(renderNode(n)) : notFound("nodes", name);
}

export function listPods(
  world: KubeWorld,
  namespace: string | undefined,
  l: Listing,
  nowMs: number,
): KubeAnswer {
  const fields = parseFieldSelector("pods", l.fieldSelector);
  if (!fields.ok) return badRequest(fields.error);
  const labels = parseLabelSelector(l.labelSelector);
  if (!labels.ok) return badRequest(labels.error);
  const all = world.pods
    .filter(
      (p) =>
        isAlive(p, nowMs) &&
        (namespace === undefined || p.namespace === namespace) &&
        matches(podFields(p), fields.value) &&
        matches(p.labels, labels.value),
    )
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  const p = page(all, l);
  if (typeof p === "string") return badRequest(p);
  return ok(
    renderList(
      "PodList",
      world,
      p.items.map((x) => renderPod(x, world, false)),
      p.next,
    ),
  );
}

export function getPod(
  world: KubeWorld,
  namespace: string,
  name: string,
  nowMs: number,
): KubeAnswer {
  const p = world.pods.find(
    (x) => x.namespace === namespace && x.name === name && isAlive(x, nowMs),
  );
  return p ? ok(renderPod(p, world)) : notFound("pods", name);
}

const PatchedNode = z.looseObject({
  metadata: z.looseObject({
    resourceVersion: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.looseObject({ unschedulable: z.boolean().optional() }),
});

/** A node without what a PATCH of it may change; the rest must come back unchanged. */
const modelled = (doc: unknown): string => {
  const d = structuredClone(doc) as {
    metadata?: Record<string, unknown>;
    spec?: Record<string, unknown>;
  };
  for (const k of ["labels", "annotations", "resourceVersion"]) delete d.metadata?.[k];
  delete d.spec?.unschedulable;
  return JSON.stringify(d);
};

/**
 * PATCH /api/v1/nodes/{name}: labels, annotations and `spec.unschedulable` (cordon); a
 * `metadata.resourceVersion` in the patch is a precondition (409 when the node changed since).
 */
export function patchNode(
  world: KubeWorld,
  name: string,
  contentType: string,
  text: string,
): { world: KubeWorld; answer: KubeAnswer } {
  const read = readNodePatch(world, name, contentType, text, {
    schema: PatchedNode,
    unmodelled: modelled,
    onlyChanges:
      "the stand-in only lets a PATCH change metadata.labels, metadata.annotations and spec.unschedulable",
  });
  if (!read.ok) return { world, answer: read.answer };
  const { node, data } = read;
  const next: KubeNode = {
    ...node,
    labels: data.metadata.labels ?? {},
    annotations: data.metadata.annotations ?? {},
    unschedulable: data.spec.unschedulable ?? false,
    resourceVersion: world.resourceVersion + 1,
  };
  const w = {
    ...world,
    resourceVersion: next.resourceVersion,
    nodes: { ...world.nodes, [name]: next },
  };
  return { world: w, answer: ok(renderNode(next)) };
}

const Eviction = z.object({
  apiVersion: z.enum(["policy/v1", "policy/v1beta1"]),
  kind: z.literal("Eviction"),
  metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
  deleteOptions: z
    .looseObject({ gracePeriodSeconds: z.number().int().min(0).nullable().optional() })
    .nullable()
    .optional(),
});

/** POST /api/v1/namespaces/{ns}/pods/{name}/eviction with a policy/v1 Eviction body. */
export function evictPod(
  world: KubeWorld,
  namespace: string,
  name: string,
  text: string,
  nowMs: number,
): { world: KubeWorld; answer: KubeAnswer } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { world, answer: badRequest("the body is not valid JSON") };
  }
  const e = Eviction.safeParse(json);
  if (!e.success)
    return {
      world,
      answer: badRequest(
        `invalid Eviction: ${e.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      ),
    };
  if (e.data.metadata.name !== name)
    return { world, answer: badRequest("name in URL does not match name in Eviction object") };
  const grace = e.data.deleteOptions?.gracePeriodSeconds ?? undefined;
  return evict(
    world,
    { namespace, name, ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}) },
    nowMs,
  );
}
