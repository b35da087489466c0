import { stableUuid } from "../topology/stableId";
import type { KubePod, KubeWorld, PendingPod, PodDeletion } from "./types";

/**
 * Pods over time, pure: a deleted pod goes once its app has stopped (at most its grace period);
 * a pod with a controller that re-creates pods elsewhere (ReplicaSet, StatefulSet, Job…) comes
 * back on a schedulable node `recreateAfterMs` after it went. DaemonSet pods and mirror pods
 * (owned by their Node, created by the kubelet from a static manifest) never move.
 */

export const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

const NOT_RECREATED = new Set(["DaemonSet", "Node"]);
export const isRecreated = (p: Pick<KubePod, "owner">): boolean =>
  p.owner !== undefined && !NOT_RECREATED.has(p.owner.kind);

export const isAlive = (p: KubePod, nowMs: number): boolean =>
  !p.deletion || p.deletion.goneMs > nowMs;

/**
 * Deletes a pod with a grace period (a DELETE, or an eviction's deleteOptions). A pod already
 * terminating keeps the earlier of the two ends: a second delete may shorten a grace period,
 * never lengthen it (as the API server does).
 */
export function deletePod(pod: KubePod, graceSeconds: number, nowMs: number, rv: number): KubePod {
  const grace = Math.max(0, graceSeconds);
  const deadlineMs = nowMs + grace * 1000;
  const stopMs = nowMs + Math.min(grace, pod.shutdownSeconds ?? grace) * 1000;
  const next: PodDeletion = pod.deletion
    ? {
        deadlineMs: Math.min(pod.deletion.deadlineMs, deadlineMs),
        graceSeconds: Math.min(pod.deletion.graceSeconds, grace),
        goneMs: Math.min(pod.deletion.goneMs, stopMs),
      }
    : { deadlineMs, graceSeconds: grace, goneMs: stopMs };
  return { ...pod, deletion: next, resourceVersion: rv };
}

/** A name as a ReplicaSet gives its pods: `<owner>-<5 characters>`; a StatefulSet keeps its own. */
function replacementName(p: PendingPod, created: number): string {
  const template = p.template;
  if (template.owner?.kind === "StatefulSet") return template.name;
  const base = template.owner?.name ?? template.name;
  const suffix = stableUuid("pod name", base, String(created)).replaceAll("-", "").slice(0, 5);
  return `${base}-${suffix}`;
}

/** The schedulable node with the fewest pods (then by name): where a controller's pod lands. */
function placement(world: KubeWorld, nowMs: number): string | undefined {
  const load = new Map<string, number>();
  for (const p of world.pods)
    if (isAlive(p, nowMs)) load.set(p.nodeName, (load.get(p.nodeName) ?? 0) + 1);
  return Object.values(world.nodes)
    .filter((n) => !n.unschedulable)
    .map((n) => n.name)
    .sort((a, b) => (load.get(a) ?? 0) - (load.get(b) ?? 0) || a.localeCompare(b))[0];
}

/** Lets time pass: gone pods leave the world (and are scheduled for re-creation), due ones return. */
export function advancePods(world: KubeWorld, nowMs: number): KubeWorld {
  const gone = world.pods.filter((p) => !isAlive(p, nowMs));
  const due = world.pending.filter((p) => p.dueMs <= nowMs);
  if (gone.length === 0 && due.length === 0) return world;
  let w: KubeWorld = {
    ...world,
    pods: world.pods.filter((p) => isAlive(p, nowMs)),
    pending: [
      ...world.pending.filter((p) => p.dueMs > nowMs),
      ...gone.filter(isRecreated).map(
        (p): PendingPod => ({
          template: {
            name: p.name,
            namespace: p.namespace,
            labels: p.labels,
            annotations: p.annotations,
            ...(p.owner ? { owner: p.owner } : {}),
            terminationGracePeriodSeconds: p.terminationGracePeriodSeconds,
            ...(p.shutdownSeconds !== undefined ? { shutdownSeconds: p.shutdownSeconds } : {}),
            phase: "Running",
          },
          dueMs: (p.deletion?.goneMs ?? nowMs) + world.recreateAfterMs,
          previousNode: p.nodeName,
        }),
      ),
    ],
  };
  const waiting: PendingPod[] = [];
  for (const p of due) {
    const node = placement(w, nowMs);
    if (!node) {
      waiting.push(p); // nowhere schedulable: Pending until a node is uncordoned
      continue;
    }
    const created = w.created + 1;
    const rv = w.resourceVersion + 1;
    const pod: KubePod = {
      ...p.template,
      name: replacementName(p, created),
      uid: stableUuid("pod", String(w.generation), String(created)),
      nodeName: node,
      createdMs: nowMs,
      resourceVersion: rv,
    };
    w = { ...w, pods: [...w.pods, pod], created, resourceVersion: rv };
  }
  return waiting.length > 0 ? { ...w, pending: [...w.pending, ...waiting] } : w;
}
