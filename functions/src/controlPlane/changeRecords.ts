import {
  agentlessIdentity,
  type ChangeRecordAction,
  type ClusterState,
  changeRecordOutcome,
  dueChangeRecords,
  type EventRecord,
  memberKey,
} from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import { runRound } from "../rounds/runner";
import type { ControlPlaneDeps } from "./deps";
import { type ChangeRecordPorts, type ChangeRecordRequest, describeProblem } from "./ports";

/**
 * The Azure Change Safety change records of a cluster's events (core/src/lifecycle/changeRecords.ts):
 * each call due is claimed in its own round (one instance wins), made, and its answer recorded
 * in another, so the record's id is stored with the event and every later ARM write for the
 * event finds it there. Runs before the acknowledges and load-balancer steps of the same sweep,
 * which then carry the record as their change reference.
 */

/** When Azure does not say how long (DurationInSeconds -1 or absent), the record plans an hour. */
export const UNKNOWN_DURATION_MS = 3_600_000;

export function changeRecordRequest(
  state: ClusterState,
  e: EventRecord,
  now: number,
): ChangeRecordRequest {
  const start = e.notBefore ?? now;
  const duration =
    e.durationInSeconds !== null && e.durationInSeconds > 0
      ? e.durationInSeconds * 1000
      : UNKNOWN_DURATION_MS;
  return {
    cluster: state.cluster,
    eventId: e.eventId,
    eventType: e.eventType,
    targets: e.resources.map((name) => ({
      name,
      resourceId:
        state.members[memberKey(name)]?.vm.resourceId ??
        agentlessIdentity(e, name)?.resourceId ??
        null,
    })),
    anticipatedStart: new Date(start),
    anticipatedEnd: new Date(start + duration),
  };
}

/** Runs the change record calls due; resolves to how many were recorded as done. */
export async function runDueChangeRecords(
  deps: ControlPlaneDeps,
  ports: ChangeRecordPorts,
  state: ClusterState,
  policy: Policy,
): Promise<number> {
  let done = 0;
  for (const due of dueChangeRecords(state, deps.clock.now())) {
    if (await runOne(deps, ports, state.cluster, due, policy)) done++;
  }
  return done;
}

async function runOne(
  deps: ControlPlaneDeps,
  ports: ChangeRecordPorts,
  cluster: string,
  due: ChangeRecordAction,
  policy: Policy,
): Promise<boolean> {
  const { eventKey, kind, attempt } = due;
  const claim = await runRound(
    deps,
    cluster,
    { kind: "changeRecordClaim", eventKey, step: kind, attempt },
    { policy },
  );
  const claimed = claim.decision.state;
  const e = claimed.events[eventKey];
  const cr = e?.changeRecord;
  // Another instance claimed it, or it is no longer due.
  if (!claim.committed || !e) return false;
  const started = deps.clock.now();
  const answer =
    kind === "open"
      ? await ports.open(changeRecordRequest(claimed, e, started))
      : cr?.id
        ? await ports.close(cr.id, {
            comments: changeRecordOutcome(e).comments,
            endedAt: new Date(e.endedAt ?? started),
          })
        : ({ ok: false, error: { status: 0, code: "NoChangeRecord", message: "no id" } } as const);
  const operation = kind === "open" ? "changeRecordOpen" : "changeRecordClose";
  deps.telemetry.controlPlane(
    cluster,
    operation,
    answer.ok ? "ok" : answer.error.code,
    deps.clock.now() - started,
  );
  await runRound(
    deps,
    cluster,
    {
      kind: "changeRecordOutcome",
      eventKey,
      step: kind,
      attempt,
      outcome: answer.ok
        ? { ok: true, id: answer.value.id, status: answer.value.status }
        : { ok: false, failure: describeProblem(answer.error) },
    },
    { policy },
  );
  return answer.ok;
}
