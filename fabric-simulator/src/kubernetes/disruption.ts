import { deletePod, isAlive } from "./pods";
import { matches } from "./selectors";
import { notFound, ok, type StatusCause, status } from "./status";
import type { KubeAnswer, KubePdb, KubePod, KubeWorld } from "./types";

/**
 * PodDisruptionBudgets and the Eviction API (policy/v1), pure. As the disruption controller
 * counts: a pod is healthy when it runs and is not being deleted; `minAvailable: n` wants n
 * healthy pods out of those the selector matches; `maxUnavailable: n` wants all but n of the
 * workload's pods (alive or waiting for their controller) healthy. An eviction is refused with
 * 429 while the budget allows no disruption, which is what makes "one pod down at a time" hold.
 */

const selects = (pdb: KubePdb, namespace: string, labels: KubePod["labels"]) =>
  pdb.namespace === namespace &&
  matches(
    labels,
    Object.entries(pdb.matchLabels).map(([key, value]) => ({ key, op: "=" as const, value })),
  );

export interface BudgetView {
  readonly expectedPods: number;
  readonly currentHealthy: number;
  readonly desiredHealthy: number;
  readonly disruptionsAllowed: number;
}

export function budget(world: KubeWorld, pdb: KubePdb, nowMs: number): BudgetView {
  const pods = world.pods.filter((p) => isAlive(p, nowMs) && selects(pdb, p.namespace, p.labels));
  const waiting = world.pending.filter((p) =>
    selects(pdb, p.template.namespace, p.template.labels),
  ).length;
  const currentHealthy = pods.filter((p) => !p.deletion && p.phase === "Running").length;
  const expectedPods = pdb.minAvailable !== undefined ? pods.length : pods.length + waiting;
  const desiredHealthy =
    pdb.minAvailable !== undefined
      ? pdb.minAvailable
      : Math.max(0, expectedPods - (pdb.maxUnavailable ?? 0));
  return {
    expectedPods,
    currentHealthy,
    desiredHealthy,
    disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy),
  };
}

export interface EvictionRequest {
  readonly namespace: string;
  readonly name: string;
  readonly gracePeriodSeconds?: number;
}

/** POST …/pods/{name}/eviction: 201 and the pod starts terminating, 429, 404 or 500. */
export function evict(
  world: KubeWorld,
  e: EvictionRequest,
  nowMs: number,
): { world: KubeWorld; answer: KubeAnswer } {
  const pod = world.pods.find(
    (p) => p.namespace === e.namespace && p.name === e.name && isAlive(p, nowMs),
  );
  if (!pod) return { world, answer: notFound("pods", e.name) };
  const grace = e.gracePeriodSeconds ?? pod.terminationGracePeriodSeconds;
  // A pod already terminating or finished has no more disruption to cause: no budget applies.
  const exempt = pod.deletion !== undefined || pod.phase !== "Running";
  if (!exempt) {
    const pdbs = world.pdbs.filter((b) => selects(b, pod.namespace, pod.labels));
    if (pdbs.length > 1)
      return {
        world,
        answer: status(
          500,
          "InternalError",
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
        ),
      };
    const pdb = pdbs[0];
    if (pdb) {
      const b = budget(world, pdb, nowMs);
      if (b.disruptionsAllowed <= 0) {
        const cause: StatusCause = {
          reason: "DisruptionBudget",
          message: `The disruption budget ${pdb.name} needs ${b.desiredHealthy} healthy pods and has ${b.currentHealthy} currently`,
        };
        return {
          world,
          answer: status(
            429,
            "TooManyRequests",
            "Cannot evict pod as it would violate the pod's disruption budget.",
            { causes: [cause] },
          ),
        };
      }
    }
  }
  const rv = world.resourceVersion + 1;
  return {
    world: {
      ...world,
      resourceVersion: rv,
      pods: world.pods.map((p) => (p === pod ? deletePod(p, grace, nowMs, rv) : p)),
    },
    answer: ok(
      { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 },
      201,
    ),
  };
}
