import type { Policy } from "@quiesce/protocol/policy";
import type { PublishedObservation } from "@quiesce/protocol/published";
import type { ClusterState, Transition } from "../model/state";
import type { Decision } from "../model/types";
import type { EvaluationInputs } from "../rules/gates";
import { applyPublished } from "./published";

/**
 * Several observations of one cluster (a delivery's events, in the order delivered) applied one
 * after the other, as one decision: the state after the last, every transition in order, and
 * which observations changed anything. The same as applying them one by one and committing each
 * (every observation is applied to the state the previous ones left), so a delivery of N events
 * is loaded and committed once rather than N times.
 */
export function applyPublishedBatch(
  state: ClusterState,
  observations: readonly PublishedObservation[],
  now: number,
  policy: Policy,
  inputs: EvaluationInputs = {},
): { decision: Decision; changed: boolean[] } {
  let current = state;
  const transitions: Transition[] = [];
  const changed: boolean[] = [];
  for (const obs of observations) {
    const d = applyPublished(current, obs, now, policy, inputs);
    changed.push(d.state !== current);
    transitions.push(...d.transitions);
    current = d.state;
  }
  return {
    decision: {
      state: current,
      transitions,
      forget: [],
    },
    changed,
  };
}
