import { withEntry } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import { evaluateEvent } from "../lifecycle/evaluate";
import type { ClusterState } from "../model/state";
import {
  type AcknowledgeOutcome,
  type ControlPlaneChange,
  recordAcknowledge,
} from "../rules/controlPlane";

/**
 * What ARM answered, recorded and the event re-evaluated at once: a refusal puts it back to
 * Ready (and says the control plane gave up) in the same write, rather than at the next sweep.
 */
export function applyAcknowledgeOutcome(
  state: ClusterState,
  key: string,
  attempt: number,
  outcome: AcknowledgeOutcome,
  now: number,
  policy: Policy,
): ControlPlaneChange | null {
  const recorded = recordAcknowledge(state, key, attempt, outcome, now, policy);
  const e = recorded?.state.events[key];
  if (!recorded || !e) return null;
  const evaluated = evaluateEvent(recorded.state, e, now, policy, null);
  return {
    state: { ...recorded.state, events: withEntry(recorded.state.events, key, evaluated.event) },
    transitions: [...recorded.transitions, ...evaluated.transitions],
  };
}
