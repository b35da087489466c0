import { eventKey, namesVm, notBeforeMs, type ScheduledEvent } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { MemberAttestation } from "../model/attestationState";
import { newerHookRun, sameHookRun } from "../model/hooks";
import type { EventRecord, Member, Readiness, Transition } from "../model/state";
import { livenessGranularityMs } from "../rules/liveness";
import { applyResourceView, guardOf } from "../rules/resources";

/**
 * How one relay's report becomes rows: its member row, the events its document names, and its
 * view of each (readiness). Each returns the very same object when nothing changed, so the store
 * writes only what did (state.ts).
 */

/**
 * The reporter's member row; lastSeenAt is refreshed only once per liveness granularity.
 * `attestation` is what attestation.ts decided for this report (the stored one, unchanged).
 */
export function nextMember(
  prev: Member | undefined,
  report: RelayReport,
  docEvents: Map<string, ScheduledEvent>,
  now: number,
  policy: Policy,
  attestation: MemberAttestation | undefined = prev?.attestation,
): Member {
  const doc = report.document;
  const eventKeys = doc ? [...docEvents.keys()].sort() : (prev?.eventKeys ?? []);
  const candidate: Member = {
    vmName: report.vm.name,
    vm: report.vm,
    relayVersion: report.relay.version,
    dryRun: report.relay.dryRun ?? false,
    bootId: report.relay.bootId,
    incarnation: doc ? doc.DocumentIncarnation : (prev?.incarnation ?? null),
    eventKeys,
    firstSeenAt: prev?.firstSeenAt ?? now,
    lastSeenAt: prev?.lastSeenAt ?? now,
    ...(report.imdsProblems?.length ? { imdsProblems: report.imdsProblems } : {}),
    ...(attestation ? { attestation } : {}),
  };
  if (!prev) return candidate;
  const stale = now - prev.lastSeenAt >= livenessGranularityMs(policy, prev);
  const same =
    !stale &&
    prev.vmName === candidate.vmName &&
    prev.relayVersion === candidate.relayVersion &&
    prev.dryRun === candidate.dryRun &&
    prev.bootId === candidate.bootId &&
    prev.incarnation === candidate.incarnation &&
    prev.eventKeys.join("\n") === eventKeys.join("\n") &&
    JSON.stringify(prev.imdsProblems ?? []) === JSON.stringify(candidate.imdsProblems ?? []) &&
    JSON.stringify(prev.vm) === JSON.stringify(candidate.vm) &&
    prev.attestation === attestation;
  if (same) return prev;
  return { ...candidate, lastSeenAt: now };
}

/** What a new event record holds of approval: nothing yet (also published.ts's records). */
export const UNDECIDED = {
  endedAt: null,
  lease: null,
  failedApprovers: [] as string[],
  approvedAt: null,
  approvedBy: null,
  approvalRule: null,
  hold: null,
  force: null,
} as const satisfies Partial<EventRecord>;

/** What a new event record takes from the event as Azure describes it, whoever reported it. */
export const eventHead = (
  ev: Pick<
    ScheduledEvent,
    "EventId" | "EventType" | "EventSource" | "DurationInSeconds" | "Description"
  >,
) => ({
  key: eventKey(ev.EventId),
  eventId: ev.EventId,
  eventType: ev.EventType,
  eventSource: ev.EventSource ?? null,
  durationInSeconds: ev.DurationInSeconds ?? null,
  description: ev.Description ?? null,
});

/** How a new event record starts: seen now by `by`, Unplanned when first seen Started. */
export const firstSight = (now: number, by: string, started: boolean) => ({
  phase: started ? ("Unplanned" as const) : ("Observed" as const),
  phaseSince: now,
  firstSeenAt: now,
  firstSeenBy: by,
  firstSeenStarted: started,
  startedAt: started ? now : null,
});

/**
 * Whether the record's NotBefore came from a relay's document (the authority once one did);
 * rows of earlier releases by their rule: a relay's once any relay reported the event.
 */
export const relayGaveNotBefore = (e: EventRecord): boolean =>
  e.notBeforeFrom
    ? e.notBeforeFrom === "relay"
    : e.resourcesIncarnation != null && e.notBefore !== null;

/** A new event record, or the stored one updated from this relay's view of it. */
export function observeEvent(
  stored: EventRecord | undefined,
  ev: ScheduledEvent,
  vmName: string,
  incarnation: number,
  now: number,
  transitions: Transition[],
): EventRecord {
  const key = eventKey(ev.EventId);
  if (!stored) {
    const started = ev.EventStatus === "Started";
    transitions.push({
      eventKey: key,
      at: now,
      from: null,
      to: started ? "Unplanned" : "Observed",
      reason: `${ev.EventType} ${ev.EventStatus} first reported by ${vmName} for ${ev.Resources.join(", ")}`,
      vm: vmName,
    });
    return {
      ...eventHead(ev),
      // The first reporter's own view, as any later one's (it may not name the reporter).
      ...applyResourceView(guardOf({ resources: [] }), vmName, incarnation, ev.Resources).guard,
      status: ev.EventStatus,
      notBefore: notBeforeMs(ev),
      ...(notBeforeMs(ev) !== null ? { notBeforeFrom: "relay" as const } : {}),
      ...firstSight(now, vmName, started),
      leftAt: null,
      ...UNDECIDED,
      failedApprovers: [], // a fresh array per record: records are never shared
    };
  }
  if (stored.leftAt !== null) return stored; // a late document from a slower VM does not revive it
  let e = stored;
  // The newest incarnation any relay reported before this one (null: only Azure's published view so far).
  const newest = stored.resourcesIncarnation ?? null;
  // Only a VM's own relay can take it out of Resources (resources.ts, invariant 1).
  const view = applyResourceView(guardOf(e), vmName, incarnation, ev.Resources);
  if (view.changed) e = { ...e, ...view.guard };
  for (const note of view.notes)
    transitions.push({
      eventKey: key,
      at: now,
      from: e.phase,
      to: e.phase,
      reason: note,
      vm: vmName,
    });
  // EventStatus only moves forward; NotBefore is "" once Started, so keep the announced one.
  if (ev.EventStatus === "Started" && e.status !== "Started") e = { ...e, status: "Started" };
  // Any document showing it Scheduled, whenever it arrives, says it was announced (published.ts
  // decides alike for its deliveries): not unannounced, whatever was seen first.
  if (ev.EventStatus === "Scheduled" && e.firstSeenStarted) {
    e = { ...e, firstSeenStarted: false };
    transitions.push({
      eventKey: key,
      at: now,
      from: e.phase,
      to: e.phase,
      reason: `${vmName}'s document shows it was announced (Scheduled) before it started`,
      vm: vmName,
    });
  }
  // A relay's NotBefore stands over a published one; among relays', a document older than the
  // newest any relay reported does not roll it back. Decided by incarnation, not by the status,
  // which a published Started may have moved first.
  const nb = notBeforeMs(ev);
  if (
    nb !== null &&
    (!relayGaveNotBefore(stored) || newest === null || incarnation >= newest) &&
    (nb !== e.notBefore || e.notBeforeFrom !== "relay")
  )
    e = { ...e, notBefore: nb, notBeforeFrom: "relay" };
  // The id as IMDS spells it (echoed in approve directives), over a published one (lower case).
  if (newest === null && ev.EventId !== e.eventId) e = { ...e, eventId: ev.EventId };
  const eventSource = ev.EventSource ?? e.eventSource;
  const durationInSeconds = ev.DurationInSeconds ?? e.durationInSeconds;
  const description = ev.Description ?? e.description;
  if (
    ev.EventType !== e.eventType ||
    eventSource !== e.eventSource ||
    durationInSeconds !== e.durationInSeconds ||
    description !== e.description
  )
    e = { ...e, eventType: ev.EventType, eventSource, durationInSeconds, description };
  return e;
}

/** One VM's view of one event: in its document, named in Resources, its hooks' progress. */
export function nextReadiness(
  stored: Readiness | undefined,
  vmName: string,
  ev: ScheduledEvent | undefined,
  docKnown: boolean,
  hooks: RelayReport["hooks"][number] | undefined,
  now: number,
): Readiness {
  const inDocument = docKnown ? ev !== undefined : (stored?.inDocument ?? false);
  const affected = ev ? namesVm(ev, vmName) : (stored?.affected ?? false);
  const drain = newerHookRun(stored?.drain ?? null, hooks?.drain);
  const recover = newerHookRun(stored?.recover ?? null, hooks?.recover);
  if (
    stored &&
    stored.inDocument === inDocument &&
    stored.affected === affected &&
    stored.vmName === vmName &&
    sameHookRun(stored.drain, drain) &&
    sameHookRun(stored.recover, recover)
  )
    return stored;
  return {
    vmName,
    inDocument,
    affected,
    drain,
    recover,
    firstSeenAt: stored?.firstSeenAt ?? now,
    updatedAt: now,
    // The coordinator's own step (loadBalancer.ts), which no report can change.
    ...(stored?.loadBalancer ? { loadBalancer: stored.loadBalancer } : {}),
  };
}
