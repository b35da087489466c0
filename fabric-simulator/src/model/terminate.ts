import { publish, replaceActive, started } from "./state";
import type { FabricState, Instant, SimEvent } from "./types";

/**
 * Terminate as Azure runs it for scale sets (virtual-machine-scale-sets-terminate-notification.md,
 * azure-control-plane-facts.md §1.5): every deleted VM gets a Terminate event of its own, shown to
 * every VM of its placement group, and "Approve all pending deletes": an approved Terminate waits
 * while another Terminate of the same scale set is still Scheduled and unapproved, until that one
 * is approved or its NotBefore passes (so VMs with the same NotBefore go together or not at all).
 */

/** Whether the event has every approval it needs (one, or each of Resources on a shared host). */
export function approvalsComplete(e: SimEvent): boolean {
  if (e.approvals.length === 0) return false;
  return !e.requireAllApprovals || e.resources.every((r) => e.approvals.some((a) => a.vm === r));
}

const scaleSetOf = (state: FabricState, e: SimEvent): string | undefined =>
  state.groups[e.group]?.scaleSetName;

/** The unapproved Terminates of the same scale set that keep this approved one from starting. */
export function pendingDeletesBefore(state: FabricState, e: SimEvent): SimEvent[] {
  const scaleSet = e.eventType === "Terminate" ? scaleSetOf(state, e) : undefined;
  if (scaleSet === undefined) return [];
  return state.active.filter(
    (x) =>
      x.eventId !== e.eventId &&
      x.eventType === "Terminate" &&
      x.phase === "Scheduled" &&
      scaleSetOf(state, x) === scaleSet &&
      !approvalsComplete(x),
  );
}

/**
 * Start every approved Terminate no pending delete holds any more (the caller publishes); per
 * group, the ids it started.
 */
export function releaseHeldDeletes(
  state: FabricState,
  at: Instant,
): { state: FabricState; startedByGroup: Map<string, string[]> } {
  let next = state;
  const startedByGroup = new Map<string, string[]>();
  for (const e of state.active) {
    if (e.eventType !== "Terminate" || e.phase !== "Scheduled" || !approvalsComplete(e)) continue;
    if (scaleSetOf(next, e) === undefined || pendingDeletesBefore(next, e).length > 0) continue;
    next = replaceActive(next, started(e, at, "approval"));
    startedByGroup.set(e.group, [...(startedByGroup.get(e.group) ?? []), e.eventId]);
  }
  return { state: next, startedByGroup };
}

export const releasedReason = (ids: readonly string[]) =>
  `started ${ids.join(",")}: no pending delete of the scale set holds it any more`;

/**
 * Publish `group`'s new document after a change that may have let held Terminates go (an
 * approval, a NotBefore, a cancellation): those of `group` join its document, other groups get
 * their own.
 */
export function publishReleasing(
  state: FabricState,
  group: string,
  reason: string,
  at: Instant,
): FabricState {
  const r = releaseHeldDeletes(state, at);
  const own = r.startedByGroup.get(group);
  let next = publish(r.state, group, own ? `${reason}; ${releasedReason(own)}` : reason, at);
  for (const [g, ids] of r.startedByGroup) {
    if (g !== group) next = publish(next, g, releasedReason(ids), at);
  }
  return next;
}
