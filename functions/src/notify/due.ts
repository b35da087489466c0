import {
  type ClusterState,
  drainStartAt,
  type EventRecord,
  explain,
  isAdvisoryEvent,
  startedFirstCause,
} from "@quiesce/core";
import type { NotificationKind, Policy } from "@quiesce/protocol/policy";
import type { ImdsHealth } from "@quiesce/protocol/relay";

/**
 * Which notifications are due, decided from state alone (level-triggered, like the core): a
 * notification is due when its condition holds, and is identified by a key built from its
 * subject and kind only, so every instance, the report path and the sweep derive the same key
 * for the same fact and the outbox's create-or-409 sends it once. Pure: no I/O, no clock.
 */

export type Severity = "info" | "warning" | "critical";

export interface Notification {
  /** Deterministic: `event|<eventKey>|<kind>`, `relay|<vm>|<lastSeenAt>|<kind>`, ... */
  key: string;
  cluster: string;
  kind: NotificationKind;
  severity: Severity;
  /** When the fact became true (epoch ms). */
  at: number;
  title: string;
  text: string;
  facts: Array<{ name: string; value: string }>;
  eventId?: string;
  vm?: string;
}

/** An event-driven notification older than this is not sent late (e.g. after first deploy). */
export const STALE_AFTER_MS = 3_600_000;

export const iso = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString());
export const list = (xs: string[], max = 20) =>
  xs.length <= max ? xs.join(", ") : `${xs.slice(0, max).join(", ")} and ${xs.length - max} more`;

function eventFacts(e: EventRecord): Notification["facts"] {
  return [
    { name: "Event", value: e.eventId },
    { name: "Type", value: e.eventType },
    { name: "Resources", value: list(e.resources) },
    { name: "NotBefore", value: iso(e.notBefore) },
    { name: "Phase", value: e.phase },
    ...(e.description ? [{ name: "Description", value: e.description }] : []),
  ];
}

/** An event Azure started although it was announced and we never approved it: a miss. */
export function expiredAtNotBefore(e: EventRecord): boolean {
  // A lease still held: Started before the approver's confirmation came back (phase.ts).
  if (e.firstSeenStarted || e.approvedAt !== null || e.lease !== null) return false;
  return ["ExpiredAtNotBefore", "Started", "Recovering", "Completed"].includes(e.phase);
}

/**
 * Notifications an event's record and readiness justify now, whichever instance looks.
 * `blocked` needs the clock and every member (the sweep's load); the report path passes
 * `withBlocked: false`.
 */
export function eventNotifications(
  state: ClusterState,
  e: EventRecord,
  now: number,
  policy: Policy,
  opts: { withBlocked: boolean },
): Notification[] {
  const out: Notification[] = [];
  const base = (kind: NotificationKind, severity: Severity, at: number, title: string) => ({
    key: `event|${e.key}|${kind}`,
    cluster: state.cluster,
    kind,
    severity,
    at,
    title: `${state.cluster}: ${title}`,
    eventId: e.eventId,
  });
  const facts = eventFacts(e);
  // An advisory event is news once, on first sight, and nothing after: it is never approved,
  // started, missed or blocked, and it ending says nothing of a maintenance (docs/operations.md).
  if (isAdvisoryEvent(e))
    return [
      {
        ...base("rebalanceRecommended", "warning", e.firstSeenAt, "Spot rebalance recommended"),
        text: `Event ${e.eventId} (${e.eventType}): Azure raised the eviction risk of ${list(e.resources)}. Advisory only: nothing to approve or drain, and Azure may still evict them with a Preempt at any time; consider moving their work elsewhere.`,
        facts,
      },
    ].filter((n) => policy.notify.on.includes(n.kind));
  const cause = startedFirstCause(e, policy);
  if (cause === "userInitiated") {
    // A user's own reboot or redeploy that Azure approved itself (scheduledEventsPolicy): news, not an incident.
    out.push({
      ...base("unplanned", "info", e.firstSeenAt, `user-initiated ${e.eventType} started`),
      text: `Event ${e.eventId} is a user-initiated ${e.eventType} that Azure approved automatically (scheduledEventsPolicy): it skipped Scheduled, so nothing drained before it.`,
      facts,
    });
  } else if (cause === "unannounced") {
    out.push({
      ...base("unplanned", "critical", e.firstSeenAt, `${e.eventType} started without notice`),
      text: `Event ${e.eventId} was first seen Started: no Scheduled notice (a hardware failure, or an operation Azure approved itself), nothing could drain.`,
      facts,
    });
  } else {
    out.push({
      ...base("observed", "info", e.firstSeenAt, `${e.eventType} scheduled`),
      text: `Event ${e.eventId} (${e.eventType}) announced for ${e.resources.length} VM(s), NotBefore ${iso(e.notBefore)}; first reported by ${e.firstSeenBy}.`,
      facts,
    });
  }
  if (e.approvedAt !== null)
    out.push({
      ...base("approved", "info", e.approvedAt, `${e.eventType} approved`),
      text: `Event ${e.eventId} approved by ${e.approvedBy ?? "?"} under rule ${e.approvalRule ?? "?"}${e.notBefore !== null ? `, ${Math.max(0, Math.round((e.notBefore - e.approvedAt) / 1000))} s before NotBefore` : ""}.`,
      facts: [
        ...facts,
        { name: "Rule", value: e.approvalRule ?? "-" },
        { name: "Approved by", value: e.approvedBy ?? "-" },
        ...(e.force ? [{ name: "Forced by", value: `${e.force.by}: ${e.force.reason}` }] : []),
      ],
    });
  if (expiredAtNotBefore(e))
    out.push({
      ...base(
        "expiredAtNotBefore",
        "critical",
        e.phase === "ExpiredAtNotBefore" ? e.phaseSince : (e.startedAt ?? e.phaseSince),
        `${e.eventType} started by Azure at NotBefore (missed)`,
      ),
      text: `Event ${e.eventId} reached NotBefore before every affected VM drained or approval was allowed: Azure started it on its own.`,
      facts,
    });
  else if (e.startedAt !== null && !e.firstSeenStarted)
    out.push({
      ...base("started", "info", e.startedAt, `${e.eventType} started`),
      text: `Event ${e.eventId} is in progress on ${list(e.resources)}.`,
      facts,
    });
  if (e.phase === "Completed")
    out.push({
      ...base("completed", "info", e.endedAt ?? e.phaseSince, `${e.eventType} completed`),
      text: `Event ${e.eventId} completed and its VMs recovered.`,
      facts,
    });
  if (e.phase === "Cancelled")
    out.push({
      ...base("cancelled", "info", e.endedAt ?? e.phaseSince, `${e.eventType} cancelled`),
      text: `Event ${e.eventId} left the document while still Scheduled: Azure cancelled it.`,
      facts,
    });
  const failed = Object.values(state.readiness[e.key] ?? {}).filter(
    (r) => r.drain?.status === "failed",
  );
  if (failed.length > 0)
    out.push({
      ...base(
        "drainFailed",
        "warning",
        Math.min(...failed.map((r) => r.updatedAt)),
        `drain failed for ${e.eventType}`,
      ),
      text: `The drain hook failed on ${list(failed.map((r) => r.vmName))}${failed[0]?.drain?.detail ? `: ${failed[0].drain.detail}` : ""}.`,
      facts: [...facts, { name: "Failed on", value: list(failed.map((r) => r.vmName)) }],
    });
  if (opts.withBlocked && e.endedAt === null && e.approvedAt === null) {
    // From when its drain may start: a planned wait for a maintenance window is not a block.
    const since = drainStartAt(e, policy) + policy.notify.blockedAfterMinutes * 60_000;
    const why = ["Observed", "Draining", "Ready"].includes(e.phase)
      ? explain(state, e.key, now, policy)
      : null;
    if (why && now >= since)
      out.push({
        ...base(
          "blocked",
          "warning",
          since,
          `${e.eventType} blocked for ${policy.notify.blockedAfterMinutes} min`,
        ),
        text: `Event ${e.eventId} is not approved after ${policy.notify.blockedAfterMinutes} minutes: waiting for ${why.waitingFor}.`,
        facts: [
          ...facts,
          ...why.blockers
            .slice(0, 10)
            .map((b) => ({ name: b.vm, value: `${b.reason}: ${b.detail}` })),
        ],
      });
  }
  return out.filter((n) => policy.notify.on.includes(n.kind));
}

/** Coverage alerts; each keyed on its episode (the silence's last report), so a relay that comes back and dies again is alerted again. */
export function imdsNotification(
  cluster: string,
  vm: string,
  health: ImdsHealth | undefined,
  policy: Policy,
): Notification | null {
  if (!health || health.failuresInARow < policy.notify.imdsFailuresBeforeAlert) return null;
  if (!policy.notify.on.includes("imdsFailing")) return null;
  const since = Date.parse(health.since);
  return {
    key: `relay|${vm.toLowerCase()}|${since}|imdsFailing`,
    cluster,
    kind: "imdsFailing",
    severity: "warning",
    at: since,
    title: `${cluster}: IMDS unreachable from ${vm}`,
    text: `The relay on ${vm} failed ${health.failuresInARow} IMDS reads in a row since ${health.since}: ${health.lastError}. It cannot see events for its VM.`,
    facts: [
      { name: "VM", value: vm },
      { name: "Since", value: health.since },
      { name: "Last error", value: health.lastError },
    ],
    vm,
  };
}

/** Keeps what is recent enough to be news. Coverage alerts are kept: their keys are per episode. */
export function fresh(ns: Notification[], now: number): Notification[] {
  return ns.filter(
    (n) =>
      !n.key.startsWith("event|") || n.kind === "vmNeverRegistered" || now - n.at <= STALE_AFTER_MS,
  );
}

/**
 * The report path: what this decision made due, event by event (only events whose record or
 * readiness the decision changed), leaving out what was already due before it.
 */
export function newlyDue(
  before: ClusterState,
  after: ClusterState,
  now: number,
  policy: Policy,
): Notification[] {
  const out: Notification[] = [];
  for (const [key, e] of Object.entries(after.events)) {
    const prev = before.events[key];
    if (e === prev && after.readiness[key] === before.readiness[key]) continue;
    const had = new Set(
      prev
        ? eventNotifications(before, prev, now, policy, { withBlocked: false }).map((n) => n.key)
        : [],
    );
    for (const n of eventNotifications(after, e, now, policy, { withBlocked: false }))
      if (!had.has(n.key)) out.push(n);
  }
  return fresh(out, now);
}
