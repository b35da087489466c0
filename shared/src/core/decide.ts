import type { RelayReport } from "../protocol/v1";
import type { Policy } from "./policy";
import type { ClusterState } from "./state";
import type { Decision, Explanation, OperatorAction } from "./types";

// Signatures only: the implementation lands with the decision core.
export function applyReport(
  _state: ClusterState,
  _report: RelayReport,
  _now: number,
  _policy: Policy,
): Decision {
  throw new Error("not implemented");
}

export function tick(_state: ClusterState, _now: number, _policy: Policy): Decision {
  throw new Error("not implemented");
}

export function applyOperatorAction(
  _state: ClusterState,
  _eventKey: string,
  _action: OperatorAction,
  _now: number,
  _policy: Policy,
): Decision {
  throw new Error("not implemented");
}

export function explain(
  _state: ClusterState,
  _eventKey: string,
  _now: number,
  _policy: Policy,
): Explanation | null {
  throw new Error("not implemented");
}
