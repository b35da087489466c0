import type { ClusterState } from "../model/state";
import type { Decision } from "../model/types";

/**
 * Whether a decision leaves storage as it was: no transition, nothing to forget, and every event,
 * readiness row and member the very object it was before (the core's contract: a row it changes
 * is a new object, and the store writes exactly those). A report decided on rows that may be old
 * copies stands only if this holds (functions/src/pipeline/report.ts).
 */
export function changesNothing(before: ClusterState, decision: Decision): boolean {
  if (decision.transitions.length > 0 || decision.forget.length > 0) return false;
  const after = decision.state;
  for (const [k, e] of Object.entries(after.events)) if (e !== before.events[k]) return false;
  for (const [k, m] of Object.entries(after.members)) if (m !== before.members[k]) return false;
  for (const [k, rows] of Object.entries(after.readiness)) {
    const was = before.readiness[k];
    if (rows === was) continue;
    for (const [mk, r] of Object.entries(rows)) if (r !== was?.[mk]) return false;
  }
  return true;
}
