import {
  agentlessIdentity,
  applyAcknowledgeOutcome,
  type ClusterState,
  claimAcknowledge,
  dueAcknowledges,
  memberKey,
} from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import type { ControlPlaneDeps } from "./deps";
import { mutate } from "./mutate";
import type { ControlPlanePorts } from "./ports";

export interface AcknowledgeSummary {
  acknowledged: number;
  failed: number;
}

/**
 * The control plane's approvals due in this cluster: each lease it was given is claimed (one
 * instance wins), acknowledged through ARM on the scope of a VM the event names, and its outcome
 * recorded. A crash between claim and record leaves the claim, which the lease's expiry turns
 * into a counted attempt (core/src/rules/controlPlane.ts): an acknowledge is never sent twice for one
 * claim, and at most `maxAttempts` times per event.
 */
export async function runDueAcknowledges(
  deps: ControlPlaneDeps,
  ports: ControlPlanePorts,
  state: ClusterState,
  policy: Policy,
): Promise<AcknowledgeSummary> {
  const summary = { acknowledged: 0, failed: 0 };
  for (const due of dueAcknowledges(state, deps.clock.now())) {
    const claimed = await mutate(deps, state.cluster, (s, now) =>
      claimAcknowledge(s, due.eventKey, due.attempt, now),
    );
    if (!claimed) continue;
    // A relay's VM tells the scope best (its ARM read finds its availability set); for an event
    // of VMs without relays, the scope Azure published it for (agentlessIdentity).
    const event = claimed.events[due.eventKey];
    const vm =
      due.resources.map((name) => claimed.members[memberKey(name)]?.vm).find((v) => v) ??
      due.resources.map((name) => (event ? agentlessIdentity(event, name) : null)).find((v) => v);
    const started = deps.clock.now();
    const outcome = vm
      ? await ports.acknowledge(vm, due.eventId)
      : {
          ok: false as const,
          error: {
            status: 0,
            code: "NoResourceId",
            message: "no VM the event names has reported its resource id: the scope is unknown",
          },
        };
    deps.telemetry.controlPlane(
      state.cluster,
      "acknowledge",
      outcome.ok ? "ok" : outcome.error.code,
      deps.clock.now() - started,
    );
    if (outcome.ok) summary.acknowledged++;
    else summary.failed++;
    await mutate(deps, state.cluster, (s, now) =>
      applyAcknowledgeOutcome(
        s,
        due.eventKey,
        due.attempt,
        outcome.ok
          ? { ok: true, scope: outcome.value.scope }
          : { ok: false, failure: { ...outcome.error, at: now } },
        now,
        policy,
      ),
    );
  }
  return summary;
}
