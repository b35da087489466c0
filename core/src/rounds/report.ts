import { dict, withEntry } from "@quiesce/protocol";
import { eventKey, type ScheduledEvent } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { Candidate } from "../lifecycle/elect";
import { evaluateAll } from "../lifecycle/evaluate";
import { nextMember, nextReadiness, observeEvent } from "../lifecycle/observe";
import type { MemberAttestation } from "../model/attestationState";
import {
  type ClusterState,
  memberKey,
  type Readiness,
  relayHoldsLease,
  type Transition,
} from "../model/state";
import type { ReportDecision } from "../model/types";
import { reportInterval } from "../rules/cadence";
import { directivesFor } from "../rules/directives";
import type { EvaluationInputs } from "../rules/gates";
import { reportScope } from "../rules/scope";

/** What the shell decided before the core applies a report (gates' verdicts, attestation). */
export interface ReportInputs extends EvaluationInputs {
  /** The member's attestation after this report (attestation.ts); absent: unchanged. */
  attestation?: MemberAttestation | undefined;
}

/**
 * Apply one relay report: the relay's own member row and readiness rows, the events its document
 * names, then re-evaluate every loaded event. The reporter is the only relay that can be elected
 * in this call, and only for events its own latest document shows Scheduled (invariant 3).
 */
export function applyReport(
  state: ClusterState,
  report: RelayReport,
  now: number,
  policy: Policy,
  inputs: ReportInputs = {},
): ReportDecision {
  const mk = memberKey(report.vm.name);
  const prev = state.members[mk];
  const doc = report.document;

  // Invariant 4: an older DocumentIncarnation than the one applied never rolls state back.
  if (prev && doc && prev.incarnation !== null && doc.DocumentIncarnation < prev.incarnation) {
    return {
      state,
      transitions: [],
      forget: [],
      reply: {
        directives: [],
        applied: false,
        nextReportInSeconds:
          prev.eventKeys.length > 0 ? policy.activeReportSeconds : policy.idleReportSeconds,
      },
    };
  }

  const docEvents = new Map<string, ScheduledEvent>(
    (doc?.Events ?? []).map((ev) => [eventKey(ev.EventId), ev]),
  );
  const attestation = "attestation" in inputs ? inputs.attestation : prev?.attestation;
  const member = nextMember(prev, report, docEvents, now, policy, attestation);
  const members = member === prev ? state.members : withEntry(state.members, mk, member);
  let events = state.events;
  let readiness = state.readiness;
  const transitions: Transition[] = [];

  // Events in this document: create or update their records.
  for (const [key, ev] of docEvents) {
    if (state.unreadableEvents?.[key]) continue; // quarantined (state.ts): never rebuilt from one report
    const stored = events[key];
    const updated = observeEvent(
      stored,
      ev,
      report.vm.name,
      doc?.DocumentIncarnation ?? 0,
      now,
      transitions,
    );
    if (updated !== stored) events = withEntry(events, key, updated);
  }
  // Events this relay had and no longer has (with a newer incarnation): they left the document.
  if (doc && prev) {
    for (const key of prev.eventKeys) {
      const stored = events[key];
      if (!docEvents.has(key) && stored && stored.leftAt === null) {
        events = withEntry(events, key, { ...stored, leftAt: now });
        transitions.push({
          eventKey: key,
          at: now,
          from: stored.phase,
          to: stored.phase,
          reason: `left the document of ${report.vm.name}`,
          vm: report.vm.name,
        });
      }
    }
  }

  // Readiness rows: this VM's view of each event it sees or has hook state for.
  const hooksByKey = new Map(report.hooks.map((h) => [eventKey(h.eventId), h]));
  const rowKeys = new Set([...docEvents.keys(), ...hooksByKey.keys(), ...(prev?.eventKeys ?? [])]);
  for (const key of rowKeys) {
    if (!events[key]) continue; // hook state for an event the coordinator never saw: nothing to attach it to
    const rows = readiness[key] ?? dict<Readiness>();
    const stored = rows[mk];
    const ev = docEvents.get(key);
    const row = nextReadiness(stored, report.vm.name, ev, doc !== null, hooksByKey.get(key), now);
    if (row !== stored) readiness = withEntry(readiness, key, withEntry(rows, mk, row));
  }

  // Approval results the relay reports for leases it held. An approver whose lease ran out before
  // its answer arrived (the coordinator was down, or slow) is heard too: when IMDS accepted its
  // StartRequests the event was approved, and an event that ran is never recorded as cancelled.
  for (const a of report.approvals) {
    const key = eventKey(a.eventId);
    const stored = events[key];
    if (!stored || stored.approvedAt !== null) continue;
    const holds = relayHoldsLease(stored, mk);
    const late = !holds && stored.failedApprovers.includes(mk);
    if (!holds && !(late && a.outcome === "accepted")) continue;
    if (a.outcome === "accepted") {
      const approved = { ...stored, approvedAt: now, approvedBy: report.vm.name };
      transitions.push({
        eventKey: key,
        at: now,
        from: stored.phase,
        to: stored.phase,
        reason: `StartRequests accepted by IMDS (HTTP ${a.httpStatus ?? 200}) from ${report.vm.name}${late ? ", reported after its approval lease ran out" : ""}`,
        vm: report.vm.name,
      });
      // Taken for cancelled (it left the documents while Scheduled) but approved: decided again
      // as an event that ran (its recovers are awaited), as when Azure reports it Completed.
      const ran = stored.phase === "Cancelled" && stored.published?.status !== "Canceled";
      if (ran)
        transitions.push({
          eventKey: key,
          at: now,
          from: stored.phase,
          to: "Recovering",
          reason: `${report.vm.name}'s StartRequests was accepted: it ran, it was not cancelled`,
          vm: report.vm.name,
        });
      events = withEntry(
        events,
        key,
        ran ? { ...approved, phase: "Recovering", phaseSince: now, endedAt: null } : approved,
      );
    } else if (a.outcome === "rejected" || a.outcome === "failed") {
      events = withEntry(events, key, {
        ...stored,
        lease: null,
        failedApprovers: [...new Set([...stored.failedApprovers, mk])],
      });
      transitions.push({
        eventKey: key,
        at: now,
        from: stored.phase,
        to: stored.phase,
        reason: `StartRequests ${a.outcome} at ${report.vm.name}${a.detail ? `: ${a.detail}` : ""}; electing another approver`,
        vm: report.vm.name,
      });
    }
  }

  let next: ClusterState = { ...state, members, events, readiness };
  const candidate: Candidate = {
    memberKey: mk,
    seesScheduled: (key) => docEvents.get(key)?.EventStatus === "Scheduled",
  };
  // Only the events this report concerns are re-decided; the others loaded (for the budget) keep
  // their stored phase until their own relays report or the sweep runs.
  const scope = reportScope(report, prev);
  const evaluated = evaluateAll(next, now, policy, candidate, scope, inputs);
  next = evaluated.state;
  transitions.push(...evaluated.transitions);

  const directives = directivesFor(next, mk, docEvents, hooksByKey, now, policy);
  return {
    state: next,
    transitions,
    forget: [],
    reply: {
      directives,
      applied: true,
      nextReportInSeconds: reportInterval(next, mk, docEvents, report, directives, now, policy),
    },
  };
}
