import type { ClusterState, EventRecord, Member } from "@quiesce/core";
import {
  acknowledgeRefusal,
  explain,
  isAdvisoryEvent,
  isEnded,
  isLive,
  startedFirstCause,
} from "@quiesce/core";
import type { Policy } from "@quiesce/protocol/policy";
import type {
  AttestationView,
  EventView,
  MemberView,
  ReadinessView,
  TimelineEntry,
} from "@quiesce/protocol/status";
import type { HistoryRow } from "../store";
import { type RefusedLookup, refusedNote } from "./refusedReports";

/**
 * What the status API shows, typed by the shared view schemas (protocol/src/status/views.ts) that
 * every client parses with; times as ISO 8601, durations in seconds.
 */

const isoTime = (ms: number): string => new Date(ms).toISOString();

/** A time the API may not have (not started, not ended) as ISO 8601, or null. */
export const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

export function memberView(m: Member, now: number, policy: Policy): MemberView {
  const ageSeconds = Math.max(0, Math.round((now - m.lastSeenAt) / 1000));
  return {
    vm: m.vmName,
    live: isLive(m, now, policy),
    // lastSeenAt is refreshed at a granularity (a third of the liveness timeout that applies), so this is an upper bound
    lastSeenSecondsAgo: ageSeconds,
    lastSeenAt: isoTime(m.lastSeenAt),
    firstSeenAt: isoTime(m.firstSeenAt),
    incarnation: m.incarnation,
    events: m.eventKeys,
    relayVersion: m.relayVersion,
    dryRun: m.dryRun,
    // What its relay could not read in its IMDS document; "document"/"event" ones block approval.
    imdsProblems: m.imdsProblems ?? [],
    ...(m.attestation ? { attestation: attestationView(m) } : {}),
    resourceId: m.vm.resourceId,
    ...(m.vm.vmScaleSetName ? { vmScaleSetName: m.vm.vmScaleSetName } : {}),
    ...(m.vm.placementGroupId ? { placementGroupId: m.vm.placementGroupId } : {}),
    ...(m.vm.platformUpdateDomain ? { platformUpdateDomain: m.vm.platformUpdateDomain } : {}),
    ...(m.vm.platformFaultDomain ? { platformFaultDomain: m.vm.platformFaultDomain } : {}),
    ...(m.vm.zone ? { zone: m.vm.zone } : {}),
  };
}

function attestationView(m: Member): AttestationView | undefined {
  const a = m.attestation;
  if (!a) return undefined;
  const b = a.binding;
  return {
    bound: b !== null && b.bootId === m.bootId && a.unbound === null,
    binding: b
      ? {
          vmId: b.vmId,
          bootId: b.bootId,
          boundAt: isoTime(b.boundAt),
          armCheckedAt: isoTime(b.armCheckedAt),
        }
      : null,
    unbound: a.unbound ? { ...a.unbound, since: isoTime(a.unbound.since) } : null,
    problem: a.problem ? { ...a.problem, at: isoTime(a.problem.at) } : null,
  };
}

/** Blockers whose relay may be there but refused: what this instance refused of its reports. */
const REFUSED_SHOWN_ON = new Set(["neverRegistered", "noLiveRelay"]);

/** `refused`: reports refused at authentication by the VM they claim, shown on its blocker. */
export function eventView(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
  refused?: RefusedLookup,
): EventView {
  const why = isEnded(e) ? null : explain(state, e.key, now, policy);
  const blockers = (why?.blockers ?? []).map((b) => {
    const claim = REFUSED_SHOWN_ON.has(b.reason) ? refused?.(b.vm) : undefined;
    return claim ? { ...b, detail: `${b.detail}; ${refusedNote(claim)}` } : b;
  });
  return {
    eventId: e.eventId,
    cluster: state.cluster,
    eventType: e.eventType,
    eventSource: e.eventSource,
    durationInSeconds: e.durationInSeconds,
    description: e.description,
    status: e.status,
    phase: e.phase,
    phaseSince: isoTime(e.phaseSince),
    notBefore: iso(e.notBefore),
    resources: e.resources,
    firstSeenAt: isoTime(e.firstSeenAt),
    firstSeenBy: e.firstSeenBy,
    startedFirst: startedFirstCause(e, policy),
    published: e.published
      ? {
          status: e.published.status,
          source: e.published.source,
          scope: e.published.scope,
          receivedAt: isoTime(e.published.receivedAt),
        }
      : null,
    advisory: isAdvisoryEvent(e),
    startedAt: iso(e.startedAt),
    endedAt: iso(e.endedAt),
    approval: {
      rule: e.approvalRule,
      approvedAt: iso(e.approvedAt),
      approvedBy: e.approvedBy,
      lease: e.lease
        ? {
            holder: e.lease.holder,
            expiresAt: isoTime(e.lease.expiresAt),
            attempt: e.lease.attempt,
          }
        : null,
      failedApprovers: e.failedApprovers,
      via: e.approvedAt === null ? null : (e.approvedVia ?? "relay"),
      controlPlane: e.controlPlane
        ? {
            attempts: e.controlPlane.attempts,
            gaveUp: e.controlPlane.gaveUp,
            lastError: e.controlPlane.lastError
              ? {
                  ...e.controlPlane.lastError,
                  at: isoTime(e.controlPlane.lastError.at),
                  outcome: acknowledgeRefusal(e.controlPlane.lastError).kind,
                }
              : null,
          }
        : null,
    },
    hold: e.hold
      ? { ...e.hold, at: isoTime(e.hold.at), expiresAt: isoTime(e.hold.expiresAt) }
      : null,
    forceApprove: e.force
      ? { ...e.force, at: isoTime(e.force.at), expiresAt: isoTime(e.force.expiresAt) }
      : null,
    gateOverrides: (e.gateOverrides ?? []).map((o) => ({
      ...o,
      at: isoTime(o.at),
      expiresAt: isoTime(o.expiresAt),
    })),
    waitingFor: why?.waitingFor ?? (isEnded(e) ? `nothing: the event ended (${e.phase})` : null),
    blockers,
    drained: why?.drained ?? [],
    gates: why?.gates ?? [],
    maintenanceWindow: why?.maintenanceWindow ?? null,
    changeRecord: e.changeRecord ? changeRecordView(e.changeRecord) : null,
  };
}

export function readinessView(state: ClusterState, key: string): ReadinessView[] {
  return Object.values(state.readiness[key] ?? {}).map((r) => ({
    vm: r.vmName,
    inDocument: r.inDocument,
    affected: r.affected,
    drain: r.drain,
    recover: r.recover,
    updatedAt: isoTime(r.updatedAt),
    loadBalancer: r.loadBalancer
      ? {
          state: r.loadBalancer.state,
          since: isoTime(r.loadBalancer.since),
          downAt: iso(r.loadBalancer.downAt),
          error: r.loadBalancer.error,
          pools: r.loadBalancer.pools,
        }
      : null,
  }));
}

export function historyView(rows: HistoryRow[]): TimelineEntry[] {
  return rows.map((r) => ({
    at: isoTime(r.at),
    kind: r.kind,
    ...(r.kind === "transition" ? { from: r.from, to: r.to } : { action: r.to }),
    reason: r.reason,
    ...(r.vm ? { vm: r.vm } : {}),
    ...(r.by ? { by: r.by } : {}),
  }));
}

/** The event's change record as the status API shows it (the claim's time is the store's). */
const changeRecordView = ({
  id,
  step,
  attempts,
  lastError,
  outcome,
}: NonNullable<EventRecord["changeRecord"]>) => ({ id, step, attempts, lastError, outcome });
