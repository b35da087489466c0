import {
  type ClusterState,
  type EventRecord,
  explain,
  type Member,
  type Policy,
} from "@quiesce/shared";
import type { HistoryRow } from "../store";
import { iso } from "./http";

/** What the status API shows; times as ISO 8601, durations in seconds. */

export function memberView(m: Member, now: number, policy: Policy) {
  const ageSeconds = Math.max(0, Math.round((now - m.lastSeenAt) / 1000));
  return {
    vm: m.vmName,
    live: now - m.lastSeenAt <= policy.livenessTimeoutSeconds * 1000,
    // lastSeenAt is refreshed at a granularity (a third of the liveness timeout), so this is an upper bound
    lastSeenSecondsAgo: ageSeconds,
    lastSeenAt: iso(m.lastSeenAt),
    firstSeenAt: iso(m.firstSeenAt),
    incarnation: m.incarnation,
    events: m.eventKeys,
    relayVersion: m.relayVersion,
    dryRun: m.dryRun,
    // What its relay could not read in its IMDS document; "document"/"event" ones block approval.
    imdsProblems: m.imdsProblems ?? [],
    resourceId: m.vm.resourceId,
    ...(m.vm.vmScaleSetName ? { vmScaleSetName: m.vm.vmScaleSetName } : {}),
    ...(m.vm.placementGroupId ? { placementGroupId: m.vm.placementGroupId } : {}),
    ...(m.vm.platformUpdateDomain ? { platformUpdateDomain: m.vm.platformUpdateDomain } : {}),
    ...(m.vm.platformFaultDomain ? { platformFaultDomain: m.vm.platformFaultDomain } : {}),
    ...(m.vm.zone ? { zone: m.vm.zone } : {}),
  };
}

export function eventView(state: ClusterState, e: EventRecord, now: number, policy: Policy) {
  const why = e.endedAt === null ? explain(state, e.key, now, policy) : null;
  return {
    eventId: e.eventId,
    cluster: state.cluster,
    eventType: e.eventType,
    eventSource: e.eventSource,
    durationInSeconds: e.durationInSeconds,
    description: e.description,
    status: e.status,
    phase: e.phase,
    phaseSince: iso(e.phaseSince),
    notBefore: iso(e.notBefore),
    resources: e.resources,
    firstSeenAt: iso(e.firstSeenAt),
    firstSeenBy: e.firstSeenBy,
    startedAt: iso(e.startedAt),
    endedAt: iso(e.endedAt),
    approval: {
      rule: e.approvalRule,
      approvedAt: iso(e.approvedAt),
      approvedBy: e.approvedBy,
      lease: e.lease
        ? { holder: e.lease.holder, expiresAt: iso(e.lease.expiresAt), attempt: e.lease.attempt }
        : null,
      failedApprovers: e.failedApprovers,
    },
    hold: e.hold ? { ...e.hold, at: iso(e.hold.at), expiresAt: iso(e.hold.expiresAt) } : null,
    forceApprove: e.force
      ? { ...e.force, at: iso(e.force.at), expiresAt: iso(e.force.expiresAt) }
      : null,
    waitingFor:
      why?.waitingFor ?? (e.endedAt !== null ? `nothing: the event ended (${e.phase})` : null),
    blockers: why?.blockers ?? [],
    drained: why?.drained ?? [],
  };
}

export function readinessView(state: ClusterState, key: string) {
  return Object.values(state.readiness[key] ?? {}).map((r) => ({
    vm: r.vmName,
    inDocument: r.inDocument,
    affected: r.affected,
    drain: r.drain,
    recover: r.recover,
    updatedAt: iso(r.updatedAt),
  }));
}

export function historyView(rows: HistoryRow[]) {
  return rows.map((r) => ({
    at: iso(r.at),
    kind: r.kind,
    ...(r.kind === "transition" ? { from: r.from, to: r.to } : { action: r.to }),
    reason: r.reason,
    ...(r.vm ? { vm: r.vm } : {}),
    ...(r.by ? { by: r.by } : {}),
  }));
}

export function clusterSummary(state: ClusterState, now: number, policy: Policy) {
  const members = Object.values(state.members)
    .sort((a, b) => a.vmName.localeCompare(b.vmName))
    .map((m) => memberView(m, now, policy));
  const active = Object.values(state.events)
    .filter((e) => e.endedAt === null)
    .sort((a, b) => a.firstSeenAt - b.firstSeenAt)
    .map((e) => eventView(state, e, now, policy));
  return {
    cluster: state.cluster,
    members,
    liveMembers: members.filter((m) => m.live).length,
    activeEvents: active,
  };
}
