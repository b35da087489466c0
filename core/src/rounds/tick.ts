import { withEntry } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import { evaluateAll, isEnded } from "../lifecycle/evaluate";
import { DELETES_VMS, isAdvisoryEvent } from "../model/eventTypes";
import type { ClusterState, Transition } from "../model/state";
import type { Decision } from "../model/types";
import type { EvaluationInputs } from "../rules/gates";
import { isLive } from "../rules/liveness";
import { settleLoadBalancerSteps } from "../rules/loadBalancer";

export const DEFAULT_EVENT_RETENTION_MS = 14 * 86_400_000;

/** The periodic sweep: lease expiry, liveness, NotBefore expiry, recovery timeouts, retention. */
export function tick(
  state: ClusterState,
  now: number,
  policy: Policy,
  opts: { eventRetentionMs?: number; inputs?: EvaluationInputs } = {},
): Decision {
  const gone = deletedWithTheirVms(state, now, policy);
  const lb = settleLoadBalancerSteps(gone.state, now);
  const evaluated = evaluateAll(lb.state, now, policy, null, undefined, opts.inputs);
  const retention = opts.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS;
  const forget = Object.values(evaluated.state.events)
    .filter((e) => isEnded(e) && e.endedAt !== null && now - e.endedAt >= retention)
    .map((e) => e.key);
  return {
    state: evaluated.state,
    transitions: [...gone.transitions, ...lb.transitions, ...evaluated.transitions],
    forget,
  };
}

/**
 * A Preempt or Terminate deletes its VMs, relays included: when it has started and no live relay
 * still sees it (a Spot VM alone in its group), nobody will ever report it leaving. The sweep
 * (which loads every member) ends it. So with an advisory event (a Spot rebalance recommendation)
 * some relay reported and no live relay still shows: its VM was most likely evicted, and nothing
 * waits on it (were the relay only silent and back, ending it early costs nothing). Other event
 * types wait for their relays to come back.
 */
function deletedWithTheirVms(
  state: ClusterState,
  now: number,
  policy: Policy,
): { state: ClusterState; transitions: Transition[] } {
  let events = state.events;
  const transitions: Transition[] = [];
  for (const e of Object.values(state.events)) {
    if (e.leftAt !== null) continue;
    const advisory = isAdvisoryEvent(e);
    if (!advisory && (!DELETES_VMS.has(e.eventType) || e.status !== "Started")) continue;
    const rows = Object.entries(state.readiness[e.key] ?? {});
    // Published only (no relay ever reported it): Azure's Completed or Canceled ends it.
    if (advisory && rows.length === 0) continue;
    if (rows.some(([mk, r]) => r.inDocument && isLive(state.members[mk], now, policy))) continue;
    events = withEntry(events, e.key, { ...e, leftAt: now });
    transitions.push({
      eventKey: e.key,
      at: now,
      from: e.phase,
      to: e.phase,
      reason: advisory
        ? `no live relay still shows the advisory ${e.eventType} (its VM evicted, or its relay gone): over`
        : `${e.eventType} started and no live relay still sees it: its VMs are gone`,
    });
  }
  return { state: events === state.events ? state : { ...state, events }, transitions };
}
