import { dict, withEntry } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { HookRun } from "@quiesce/protocol/relay";
import { evaluateAll, isEnded } from "../lifecycle/evaluate";
import { DELETES_VMS } from "../model/eventTypes";
import {
  type ClusterState,
  type EventRecord,
  memberKey,
  type Readiness,
  type Transition,
} from "../model/state";
import { agentlessVms } from "../rules/agentlessVms";
import type { EvaluationInputs } from "../rules/gates";
import { deferredUntil } from "../rules/windowDeferral";

/**
 * Agentless VMs (agentlessVms.ts): the coordinator runs the hooks a relay would, from storage,
 * the way it runs load-balancer steps. A hook run is claimed (its readiness row says `running`,
 * committed under the event's ETag, so one instance runs it), then its outcome recorded. An
 * instance that died mid-run leaves a claim that runs out after the hook's timeout (+ grace):
 * the next attempt starts, up to `maxAttempts`, after which the hook counts as failed.
 *
 * Drain: while the event is Scheduled and not approved. Recover: once Azure says it is over
 * (published Completed or Canceled: there is no relay document to leave) for a VM it drained.
 */

export type AgentlessHookKind = "drain" | "recover";

export interface AgentlessRun {
  eventKey: string;
  vm: string;
  hook: AgentlessHookKind;
  attempt: number;
  /** When the run's claim runs out (epoch ms); the caller's timeout is shorter. */
  deadline: number;
  event: EventRecord;
}

/** Beyond the hook's own timeout, how long a claim waits for its instance to record an outcome. */
export const CLAIM_GRACE_MS = 30_000;

const hookPolicy = (policy: Policy, hook: AgentlessHookKind) => policy.agentless[hook];
const timeoutMs = (policy: Policy, hook: AgentlessHookKind) =>
  (hookPolicy(policy, hook)?.timeoutSeconds ?? 0) * 1000;

/** The attempt that is due for this hook run, or null (not due, or attempts used up). */
function dueAttempt(
  run: HookRun | null,
  now: number,
  policy: Policy,
  hook: AgentlessHookKind,
): number | null {
  if (!run) return 1;
  if (run.status === "succeeded" || run.status === "failed") return null;
  if (run.status === "running") {
    const claimedAt = Date.parse(run.startedAt);
    if (now < claimedAt + timeoutMs(policy, hook) + CLAIM_GRACE_MS) return null;
  }
  return run.attempt + 1; // interrupted, or a claim that ran out
}

function wants(e: EventRecord, row: Readiness | undefined, hook: AgentlessHookKind): boolean {
  if (hook === "drain")
    return e.leftAt === null && e.status === "Scheduled" && e.approvedAt === null;
  return e.leftAt !== null && !DELETES_VMS.has(e.eventType) && (row?.drain ?? null) !== null;
}

/** Hook runs due now in the cluster (level-triggered: recomputed from storage each time). */
export function dueAgentlessHooks(
  state: ClusterState,
  now: number,
  policy: Policy,
): AgentlessRun[] {
  if (!policy.agentless.enabled) return [];
  const out: AgentlessRun[] = [];
  for (const e of Object.values(state.events)) {
    if (isEnded(e)) continue;
    // A maintenance window defers the coordinator's drains as it does a relay's.
    const deferred = deferredUntil(e, now, policy) !== null;
    for (const vm of agentlessVms(state, e, policy)) {
      const row = state.readiness[e.key]?.[memberKey(vm)];
      for (const hook of ["drain", "recover"] as const) {
        if (!wants(e, row, hook) || (hook === "drain" && deferred)) continue;
        const attempt = dueAttempt(row?.[hook] ?? null, now, policy, hook);
        if (attempt === null) continue;
        const deadline = now + timeoutMs(policy, hook) + CLAIM_GRACE_MS;
        out.push({ eventKey: e.key, vm, hook, attempt, deadline, event: e });
      }
    }
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

function withRun(
  state: ClusterState,
  key: string,
  vm: string,
  hook: AgentlessHookKind,
  run: HookRun,
  now: number,
): ClusterState {
  const mk = memberKey(vm);
  const rows = state.readiness[key] ?? dict<Readiness>();
  const stored = rows[mk];
  const row: Readiness = {
    vmName: stored?.vmName ?? vm,
    inDocument: stored?.inDocument ?? false,
    affected: true,
    drain: stored?.drain ?? null,
    recover: stored?.recover ?? null,
    firstSeenAt: stored?.firstSeenAt ?? now,
    updatedAt: now,
    ...(stored?.loadBalancer ? { loadBalancer: stored.loadBalancer } : {}),
    [hook]: run,
  };
  return { ...state, readiness: withEntry(state.readiness, key, withEntry(rows, mk, row)) };
}

export interface AgentlessChange {
  state: ClusterState;
  transitions: Transition[];
}

/**
 * Claims a due run: `running` for this attempt, or, when the attempts are used up, `failed`
 * (null: no longer due; another instance claimed it or the event moved on).
 */
export function claimAgentlessHook(
  state: ClusterState,
  run: Pick<AgentlessRun, "eventKey" | "vm" | "hook" | "attempt">,
  now: number,
  policy: Policy,
  claim?: string,
): (AgentlessChange & { claimed: boolean }) | null {
  const e = state.events[run.eventKey];
  if (!e) return null;
  const note = (reason: string): Transition => ({
    eventKey: e.key,
    at: now,
    from: e.phase,
    to: e.phase,
    reason,
    vm: run.vm,
  });
  const runs = (r: Pick<AgentlessRun, "vm" | "hook" | "attempt">) =>
    `the coordinator runs the ${r.hook} hook of ${r.vm} (attempt ${r.attempt}; no relay on this VM)`;
  // A retry of this claim whose commit stopped after its readiness row (the event row lost a
  // race): the row is already this claim, only its history is missing.
  if (claim && holdsAgentlessClaim(state, run, claim))
    return { state, transitions: [note(runs(run))], claimed: true };
  const due = dueAgentlessHooks(state, now, policy).find(
    (d) =>
      d.eventKey === run.eventKey && d.hook === run.hook && memberKey(d.vm) === memberKey(run.vm),
  );
  if (!due || due.attempt !== run.attempt) return null;
  if (run.attempt > policy.agentless.maxAttempts) {
    const failed: HookRun = {
      status: "failed",
      attempt: run.attempt - 1,
      startedAt: iso(now),
      finishedAt: iso(now),
      detail: `no outcome recorded after ${policy.agentless.maxAttempts} attempt(s)`,
    };
    return {
      state: withRun(state, e.key, run.vm, run.hook, failed, now),
      transitions: [
        note(`the coordinator's ${run.hook} hook of ${run.vm} gave up: ${failed.detail}`),
      ],
      claimed: false,
    };
  }
  const hook = hookPolicy(policy, run.hook);
  const claimed: HookRun = hook
    ? {
        status: "running",
        attempt: run.attempt,
        startedAt: iso(now),
        ...(claim ? { detail: claim } : {}),
      }
    : // No hook set: done at once, as a relay without a hook does.
      {
        status: "succeeded",
        attempt: run.attempt,
        startedAt: iso(now),
        finishedAt: iso(now),
        detail: `no ${run.hook} hook configured`,
      };
  return {
    state: withRun(state, e.key, run.vm, run.hook, claimed, now),
    transitions: [
      note(
        hook
          ? runs(run)
          : `${run.vm} has no relay and the policy no ${run.hook} hook: nothing to run`,
      ),
    ],
    claimed: hook !== undefined,
  };
}

/**
 * Whether the stored run is this claim (a claim's commit that failed half-way, its readiness row
 * written and its event row not, is retried: the retry must know the row is its own).
 */
export function holdsAgentlessClaim(
  state: ClusterState,
  run: Pick<AgentlessRun, "eventKey" | "vm" | "hook" | "attempt">,
  claim: string,
): boolean {
  const stored = state.readiness[run.eventKey]?.[memberKey(run.vm)]?.[run.hook];
  return stored?.status === "running" && stored.attempt === run.attempt && stored.detail === claim;
}

/**
 * Records what a claimed run did, and re-decides the event (a round with no relay to elect: the
 * control plane may take the lease at once). Null when the claim is no longer the current one.
 */
export function recordAgentlessHook(
  state: ClusterState,
  run: Pick<AgentlessRun, "eventKey" | "vm" | "hook" | "attempt">,
  outcome: { result: "succeeded" | "failed"; detail: string; startedAt: number },
  now: number,
  policy: Policy,
  inputs: EvaluationInputs = {},
): AgentlessChange | null {
  const e = state.events[run.eventKey];
  const stored = state.readiness[run.eventKey]?.[memberKey(run.vm)]?.[run.hook];
  if (!e || !stored || stored.attempt !== run.attempt) return null;
  const detail = outcome.detail.slice(0, 1024);
  // A retry of this record whose commit stopped after its readiness row (the event row lost a
  // race to another VM's record): the outcome is stored, but the event was decided without it.
  // Only the claimer records an attempt, so a stored outcome equal to this one is its own.
  const ownRecord =
    stored.status === outcome.result && stored.finishedAt !== undefined && stored.detail === detail;
  if (stored.status !== "running" && !ownRecord) return null;
  const finishedAt = ownRecord && stored.finishedAt ? Date.parse(stored.finishedAt) : now;
  const recorded = ownRecord
    ? state
    : withRun(
        state,
        e.key,
        run.vm,
        run.hook,
        {
          status: outcome.result,
          attempt: run.attempt,
          startedAt: stored.startedAt,
          finishedAt: iso(finishedAt),
          detail,
        },
        now,
      );
  const evaluated = evaluateAll(recorded, now, policy, null, new Set([e.key]), inputs);
  return {
    state: evaluated.state,
    transitions: [
      {
        eventKey: e.key,
        at: now,
        from: e.phase,
        to: e.phase,
        reason: `the coordinator's ${run.hook} hook of ${run.vm} ${outcome.result} in ${((finishedAt - outcome.startedAt) / 1000).toFixed(1)} s: ${detail}`,
        vm: run.vm,
      },
      ...evaluated.transitions,
    ],
  };
}
