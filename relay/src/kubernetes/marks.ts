import type { NodeInfo } from "./objects";

/**
 * What Quiesce writes on a node, and how it takes it back, pure. The node records, in
 * annotations, which events Quiesce drains it for and what Quiesce itself changed, so a recover
 * undoes only that: a node an operator (or AKS's own auto-drain) had cordoned stays cordoned, a
 * load-balancer label someone else set stays set. Several events may overlap: the node is
 * uncordoned when the last of them has recovered.
 */

/** The events (ids, comma-separated) Quiesce is draining this node for. */
export const EVENTS_ANNOTATION = "quiesce.io/drain-events";
/** Set (to when) when Quiesce cordoned the node; absent when it was cordoned already. */
export const CORDONED_ANNOTATION = "quiesce.io/cordoned";
/** Set (to when) when Quiesce added the load-balancer exclusion label. */
export const EXCLUDED_ANNOTATION = "quiesce.io/excluded-from-load-balancers";
/** cloud-provider-azure takes a node with this label out of load balancers' backend pools. */
export const EXCLUDE_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers";

/** A JSON merge patch (RFC 7386) of a node; null deletes a key. */
export interface NodePatch {
  metadata: {
    resourceVersion?: string;
    annotations?: Record<string, string | null>;
    labels?: Record<string, string | null>;
  };
  spec?: { unschedulable: boolean | null };
}

const ids = (node: NodeInfo): string[] =>
  (node.annotations[EVENTS_ANNOTATION] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Cordon for `eventId` (and label, with `excludeFromLoadBalancers`); null when the node already
 * is as wanted (a resumed drain). The patch carries the node's resourceVersion: if anyone changed
 * the node since it was read, the API server refuses it (409) and the drain reads it again, so
 * "was it cordoned before us?" is never answered from a stale copy.
 */
export function cordonPatch(
  node: NodeInfo,
  eventId: string,
  nowIso: string,
  excludeFromLoadBalancers: boolean,
): NodePatch | null {
  const events = ids(node);
  const annotations: Record<string, string> = {};
  const labels: Record<string, string> = {};
  if (!events.some((e) => same(e, eventId)))
    annotations[EVENTS_ANNOTATION] = [...events, eventId].join(",");
  const ours = node.annotations[CORDONED_ANNOTATION] !== undefined;
  const cordon = !node.unschedulable;
  if (cordon && !ours) annotations[CORDONED_ANNOTATION] = nowIso;
  if (excludeFromLoadBalancers && node.labels[EXCLUDE_LABEL] === undefined) {
    labels[EXCLUDE_LABEL] = "true";
    annotations[EXCLUDED_ANNOTATION] = nowIso;
  }
  if (!cordon && Object.keys(annotations).length === 0 && Object.keys(labels).length === 0)
    return null;
  return {
    metadata: {
      ...(node.resourceVersion ? { resourceVersion: node.resourceVersion } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ...(Object.keys(labels).length ? { labels } : {}),
    },
    ...(cordon ? { spec: { unschedulable: true } } : {}),
  };
}

/**
 * The recover for `eventId`: forget it; once no event is left, undo what Quiesce did and only
 * that. Null when there is nothing of Quiesce's to undo.
 */
export function uncordonPatch(node: NodeInfo, eventId: string): NodePatch | null {
  const events = ids(node);
  const left = events.filter((e) => !same(e, eventId));
  const rv = node.resourceVersion ? { resourceVersion: node.resourceVersion } : {};
  if (left.length > 0)
    return left.length === events.length
      ? null
      : { metadata: { ...rv, annotations: { [EVENTS_ANNOTATION]: left.join(",") } } };
  const cordoned = node.annotations[CORDONED_ANNOTATION] !== undefined;
  const excluded = node.annotations[EXCLUDED_ANNOTATION] !== undefined;
  if (events.length === 0 && !cordoned && !excluded) return null;
  return {
    metadata: {
      ...rv,
      annotations: {
        [EVENTS_ANNOTATION]: null,
        ...(cordoned ? { [CORDONED_ANNOTATION]: null } : {}),
        ...(excluded ? { [EXCLUDED_ANNOTATION]: null } : {}),
      },
      ...(excluded ? { labels: { [EXCLUDE_LABEL]: null } } : {}),
    },
    ...(cordoned ? { spec: { unschedulable: null } } : {}),
  };
}
