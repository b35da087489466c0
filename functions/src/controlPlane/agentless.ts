import { randomUUID } from "node:crypto";
import {
  type AgentlessRun,
  agentlessIdentity,
  type ClusterState,
  dueAgentlessHooks,
  type EvaluationInputs,
  hasGates,
  holdsAgentlessClaim,
} from "@quiesce/core";
import type { AgentlessHook, Policy } from "@quiesce/protocol/policy";
import { runRound } from "../rounds/runner";
import type { ControlPlaneDeps } from "./deps";

/**
 * Runs the hooks due for VMs without a relay (core/src/rounds/agentless.ts): each run is claimed
 * (committed: one instance runs it), called, and its outcome recorded, which re-decides the event
 * (so the control plane can take the lease at once). Runs go in parallel and are not awaited by
 * the caller: a hook may take minutes, and the sweep must not wait for it. `onRecorded` hears of
 * each outcome (the coordinator's follow-up acknowledges at once rather than at the next sweep).
 * `only` limits the runs to those events (a follow-up reads only their rows).
 */
export type HookCaller = (
  hook: AgentlessHook,
  vmName: string,
  payload: unknown,
) => Promise<{ result: "succeeded" | "failed"; detail: string }>;

/** What runs need beyond storage: the hook call, and the gates' verdicts for an election. */
export interface AgentlessRunner {
  call: HookCaller;
  /** The cluster's gate verdicts now (ControlPlane.gateInputs); asked only when it has gates. */
  gateInputs(cluster: string): Promise<EvaluationInputs>;
}

export function startDueAgentlessHooks(
  deps: ControlPlaneDeps,
  runner: AgentlessRunner,
  state: ClusterState,
  policy: Policy,
  only: ReadonlySet<string> | undefined,
  onRecorded: (cluster: string, eventKey: string) => void,
): Promise<number>[] {
  return dueAgentlessHooks(state, deps.clock.now(), policy)
    .filter((run) => !only || only.has(run.eventKey))
    .map((run) =>
      runOne(deps, runner, state.cluster, run, policy).then((ran) => {
        if (ran) onRecorded(state.cluster, run.eventKey);
        return ran ? 1 : 0;
      }),
    );
}

async function runOne(
  deps: ControlPlaneDeps,
  runner: AgentlessRunner,
  cluster: string,
  run: AgentlessRun,
  policy: Policy,
): Promise<boolean> {
  const claim = `claimed by ${randomUUID()}`;
  // A retry after a commit that failed half-way finds its own claim written: still ours
  // (claimAgentlessHook knows it by `claim`).
  const claimed = await runRound(deps, cluster, { kind: "hookClaim", run, claim }, { policy });
  const hook = policy.agentless[run.hook];
  if (!holdsAgentlessClaim(claimed.decision.state, run, claim) || !hook) return claimed.committed;
  const startedAt = deps.clock.now();
  const outcome = await runner.call(hook, run.vm, hookPayload(run, hook, startedAt));
  const ms = deps.clock.now() - startedAt;
  deps.telemetry.controlPlane(
    cluster,
    `hook.${run.hook}`,
    outcome.result === "succeeded" ? "ok" : "failed",
    ms,
  );
  // The last drain's record elects the control plane at once; with gates, only a round that
  // evaluated them may elect (core/src/rules/gates.ts), or the event would wait for the next sweep.
  const inputs = run.hook === "drain" && hasGates(policy) ? await runner.gateInputs(cluster) : {};
  // Its own round, so an approval it leads to reaches the metrics and notifications.
  await runRound(
    deps,
    cluster,
    { kind: "hookOutcome", run, outcome: { ...outcome, startedAt }, inputs },
    { policy },
  );
  return true;
}

const rfc1123 = (ms: number | null) => (ms === null ? "" : new Date(ms).toUTCString());

/** What a relay's hook receives (relay/src/hooks/payload.ts), for a VM without a relay. */
export function hookPayload(run: AgentlessRun, hook: AgentlessHook, startedAt: number) {
  const e = run.event;
  const vm = agentlessIdentity(e, run.vm);
  return {
    hook: run.hook,
    attempt: run.attempt,
    deadline: new Date(startedAt + hook.timeoutSeconds * 1000).toISOString(),
    dryRun: false,
    vm: vm ? { ...vm, vmId: undefined } : { name: run.vm },
    event: {
      EventId: e.eventId,
      EventType: e.eventType,
      ResourceType: "VirtualMachine",
      Resources: e.resources,
      EventStatus: e.status,
      NotBefore: e.status === "Scheduled" ? rfc1123(e.notBefore) : "",
      Description: e.description ?? "",
      EventSource: e.eventSource ?? "Platform",
      DurationInSeconds: e.durationInSeconds ?? -1,
    },
    /** Who calls: the coordinator, for a VM that runs no relay. */
    caller: "coordinator",
  };
}
