import type { Policy } from "@quiesce/protocol/policy";
import { describeGates, recoversOwed } from "../lifecycle/evaluate";
import { acknowledgeRefusal } from "../model/acknowledgeRefusal";
import { advisoryNote, isAdvisoryEvent } from "../model/eventTypes";
import type { ClusterState, EventRecord } from "../model/state";
import type { Explanation } from "../model/types";
import {
  activeOverride,
  decideApproval,
  eventsInFlight,
  unreadableInFlight,
} from "../rules/approval";
import { restoresOwed } from "../rules/loadBalancer";
import { windowNote } from "../rules/windowDeferral";

const iso = (ms: number) => new Date(ms).toISOString();

/** In plain words: what the event waits for now, and on which VMs. */
export function explain(
  state: ClusterState,
  key: string,
  now: number,
  policy: Policy,
): Explanation | null {
  const e = state.events[key];
  if (!e) return null;
  const d = decideApproval(state, e, now, policy);
  const base = {
    eventKey: e.key,
    eventId: e.eventId,
    phase: e.phase,
    blockers: d.blockers,
    drained: d.drained,
    approvalRule: e.approvalRule ?? (d.allowed ? d.rule : null),
    gates: e.phase === "Ready" ? (e.gates?.failing ?? []) : [],
    maintenanceWindow: windowNote(e, now, policy),
  };
  const names = (bs: typeof d.blockers) => bs.map((b) => `${b.vm} (${b.detail})`).join(", ");
  const hold = activeOverride(e.hold, now);
  let waitingFor: string;
  if (isAdvisoryEvent(e) && e.leftAt === null) return { ...base, waitingFor: advisoryNote(e) };
  switch (e.phase) {
    case "Observed":
    case "Draining":
    case "Ready": {
      if (hold) {
        waitingFor = `operator hold by ${hold.by} until ${iso(hold.expiresAt)}: ${hold.reason}`;
      } else if (d.rule === "deferred") {
        waitingFor = windowNote(e, now, policy) ?? "a maintenance window";
      } else if (!d.allowed) {
        waitingFor = `${d.blockers.length} of ${e.resources.length} affected VM(s) to drain: ${names(d.blockers)}`;
      } else {
        const inFlight = [
          ...eventsInFlight(state, e.key).map((x) => x.eventId),
          ...unreadableInFlight(state).map((k) => `${k} (row unreadable)`),
        ];
        waitingFor =
          !d.bypassesBudget && inFlight.length >= policy.maxEventsInFlight
            ? `the cluster's budget of ${policy.maxEventsInFlight} event(s) in flight, used by ${inFlight.join(", ")}`
            : base.gates.length > 0
              ? `gate(s) to pass: ${describeGates(base.gates)}`
              : waitingForApprover(e, now, policy, d.rule);
      }
      if (e.notBefore !== null)
        waitingFor += `; Azure starts it anyway at NotBefore ${iso(e.notBefore)}`;
      break;
    }
    case "Approving":
      waitingFor =
        e.approvedAt !== null
          ? `Azure to start the event (approved by ${e.approvedBy} at ${iso(e.approvedAt)})`
          : e.lease?.via === "controlPlane"
            ? `the control plane's acknowledge through Azure Resource Manager (attempt ${e.lease.attempt}, lease until ${iso(e.lease.expiresAt)})`
            : e.lease
              ? `${e.lease.holder} to post StartRequests (lease until ${iso(e.lease.expiresAt)})`
              : "re-election of an approver";
      break;
    case "Started":
    case "Unplanned":
    case "ExpiredAtNotBefore":
      waitingFor =
        e.status === "Started"
          ? "Azure to finish the maintenance and remove the event from the document"
          : `Azure to start the event: NotBefore passed before approval${e.notBefore ? ` (${iso(e.notBefore)})` : ""}`;
      break;
    case "Recovering": {
      const owed = recoversOwed(state, e, now, policy);
      const lb = restoresOwed(state, e);
      waitingFor = [
        ...(owed.length > 0 ? [`recover hooks on ${owed.join(", ")}`] : []),
        ...(lb.length > 0 ? [`admin state restored on ${lb.join(", ")}'s load balancers`] : []),
      ].join("; ");
      // Nothing owed any more: the next evaluation (a report, the sweep) completes it.
      if (!waitingFor) waitingFor = "the next sweep to record it Completed";
      break;
    }
    default:
      waitingFor = "nothing: the event has ended";
  }
  return { ...base, waitingFor };
}

/** Ready, within budget, gates passing: who is expected to approve, and when the fallback comes. */
function waitingForApprover(e: EventRecord, now: number, policy: Policy, rule: string): string {
  const relay = `an eligible relay (one that sees the event Scheduled) to report, to elect it approver (rule ${rule})`;
  const cp = policy.controlPlaneApproval;
  if (cp.mode !== "fallback") return relay;
  if (e.controlPlane?.gaveUp)
    return `${relay}; the control plane gave up${e.controlPlane.lastError ? ` (ARM ${e.controlPlane.lastError.code}: ${e.controlPlane.lastError.message}; ${acknowledgeRefusal(e.controlPlane.lastError).meaning})` : ""}`;
  const at = e.phaseSince + cp.afterSeconds * 1000;
  return `${relay}; the control plane approves through Azure Resource Manager ${now >= at ? "at the next sweep" : `from ${iso(at)}`} if none does`;
}
