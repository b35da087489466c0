import { type ClusterState, type Decision, isEnded } from "@quiesce/core";
import type { AuditEntry, ClusterStore } from "./clusterStore";
import type { Loaded } from "./loaded";

/**
 * Commit: the rows the decision changed, under the ETags they were read with (store/decisionWriter.ts).
 * Which events have ended is the core's judgement, made here and handed to the store, which
 * writes it as the `ended` column (what the sweep and the status API query) and leaves ended
 * events out of an election's rewrite of the events in flight.
 */
export function commitDecision(
  store: ClusterStore,
  loaded: Loaded,
  decision: Decision,
  opts: { reporter?: string; audit?: AuditEntry } = {},
): Promise<void> {
  return store.commit(loaded, decision, { ...opts, ended: endedEvents(decision.state) });
}

function endedEvents(state: ClusterState): Set<string> {
  const ended = new Set<string>();
  for (const [key, e] of Object.entries(state.events)) if (isEnded(e)) ended.add(key);
  return ended;
}
