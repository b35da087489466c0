import { eventKey, type StartRequestsBody } from "@quiesce/protocol/imds";
import { append, fail, ok, publish, replaceActive, started } from "./state";
import type { FabricState, Instant, Outcome, SimEvent, StartRequestOutcome } from "./types";

/**
 * A VM's `POST StartRequests`. Any VM of the group may approve any event of its document, and the
 * approval lets the event proceed for all its Resources (unless the event waits for every
 * affected VM, as shared hosts do). Ids the VM cannot see are accepted and ignored, as Azure does.
 */
export function startRequests(
  state: FabricState,
  vmName: string,
  body: StartRequestsBody,
  at: Instant,
): Outcome<ReadonlyArray<{ eventId: string; outcome: StartRequestOutcome }>> {
  const vm = state.vms[vmName];
  if (!vm || vm.deleted) return fail(404, `no VM ${vmName}`);
  let next = state;
  const outcomes: Array<{ eventId: string; outcome: StartRequestOutcome }> = [];
  const startedIds: string[] = [];
  for (const { EventId } of body.StartRequests) {
    const key = eventKey(EventId);
    const e = next.active.find((x) => x.group === vm.group && eventKey(x.eventId) === key);
    if (!e) {
      outcomes.push({ eventId: EventId, outcome: "unknown" });
      continue;
    }
    if (e.phase === "Started") {
      outcomes.push({ eventId: EventId, outcome: "alreadyStarted" });
      continue;
    }
    const first = e.approvals.length === 0;
    const approved: SimEvent = {
      ...e,
      approvals: [...e.approvals, { vm: vm.name, at }],
      ...(first ? { approvedAt: at, approvedBy: vm.name } : {}),
    };
    const allIn = approved.resources.every((r) => approved.approvals.some((a) => a.vm === r));
    if (!approved.requireAllApprovals || allIn) {
      next = replaceActive(next, started(approved, at, "approval"));
      startedIds.push(e.eventId);
      outcomes.push({ eventId: EventId, outcome: "approved" });
    } else {
      next = replaceActive(next, approved);
      outcomes.push({ eventId: EventId, outcome: "waitingForOthers" });
    }
  }
  next = append(next, {
    kind: "startRequests",
    vm: vm.name,
    group: vm.group,
    eventIds: body.StartRequests.map((r) => r.EventId),
    outcomes,
    at,
  });
  if (startedIds.length > 0) {
    next = publish(next, vm.group, `started ${startedIds.join(",")} on approval by ${vm.name}`, at);
  }
  return ok(next, outcomes);
}
