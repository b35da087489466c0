import { agentlessIdentity, type ClusterState, dueAcknowledges, memberKey } from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import { runRound } from "../rounds/runner";
import type { ControlPlaneDeps } from "./deps";
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
    const claim = await runRound(
      deps,
      state.cluster,
      { kind: "acknowledgeClaim", eventKey: due.eventKey, attempt: due.attempt },
      { policy },
    );
    if (!claim.committed) continue; // another instance claimed it, or the lease moved on
    const claimed = claim.decision.state;
    // A relay's VM tells the scope best (its ARM read finds its availability set); for an event
    // of VMs without relays, the scope Azure published it for (agentlessIdentity).
    const event = claimed.events[due.eventKey];
    const vm =
      due.resources.map((name) => claimed.members[memberKey(name)]?.vm).find((v) => v) ??
      due.resources.map((name) => (event ? agentlessIdentity(event, name) : null)).find((v) => v);
    const started = deps.clock.now();
    // The event's change record, when one is open: the policy token names it (Change Safety).
    const changeReference = event?.changeRecord?.id ?? undefined;
    const outcome = vm
      ? await ports.acknowledge(vm, due.eventId, changeReference)
      : {
          ok: false as const,
          error: {
            status: 0,
            code: "NoResourceId",
            message: "no VM the event names has reported its resource id: the scope is unknown",
          },
        };
    // Every answer says whether Azure acknowledges in the VM's region (regionWatch.ts).
    if (vm)
      await deps.regions?.learn(
        state.cluster,
        vm,
        outcome.ok
          ? { ok: true }
          : { ok: false, status: outcome.error.status, code: outcome.error.code },
      );
    deps.telemetry.controlPlane(
      state.cluster,
      "acknowledge",
      outcome.ok ? "ok" : outcome.error.code,
      deps.clock.now() - started,
    );
    if (outcome.ok) summary.acknowledged++;
    else summary.failed++;
    // Its own round, so an approval through Azure Resource Manager reaches the metrics and
    // notifications as a relay's does.
    await runRound(
      deps,
      state.cluster,
      {
        kind: "acknowledgeOutcome",
        eventKey: due.eventKey,
        attempt: due.attempt,
        outcome: outcome.ok
          ? { ok: true, scope: outcome.value.scope }
          : { ok: false, failure: { ...outcome.error, at: deps.clock.now() } },
      },
      { policy },
    );
  }
  return summary;
}
