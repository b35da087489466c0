import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { DeferDirective } from "@quiesce/protocol/relay";
import { isAdvisoryEvent } from "../model/eventTypes";
import type { ClusterState, EventRecord } from "../model/state";
import type { Blocker } from "../model/types";
import { decideWindow, describeWindow, isDeferred, type WindowDecision } from "./maintenanceWindow";

/** The maintenance-window decision (maintenanceWindow.ts) for a stored event. */
export function eventWindow(e: EventRecord, now: number, policy: Policy): WindowDecision {
  return decideWindow(
    policy,
    {
      eventType: e.eventType,
      // A Started event has no NotBefore left to respect, nor anything to approve.
      notBefore: e.status === "Started" ? null : e.notBefore,
      firstSeenAt: e.firstSeenAt,
      advisory: isAdvisoryEvent(e),
    },
    now,
  );
}

/** When the event's drain is deferred now: until when (epoch ms) and why, in words. */
export function deferredUntil(
  e: EventRecord,
  now: number,
  policy: Policy,
): { until: number; why: string } | null {
  if (!policy.maintenanceWindows) return null; // the common case: no work at all
  const d = eventWindow(e, now, policy);
  return isDeferred(d) ? { until: d.until, why: describeWindow(d) ?? "" } : null;
}

/**
 * While deferred, the VMs whose drain has not started wait for the window, not for their relay:
 * their blockers name the rule. Null when the event is not deferred.
 */
export function windowDeferral(
  e: EventRecord,
  now: number,
  policy: Policy,
):
  | ((base: { blockers: Blocker[]; drained: string[] }) => {
      blockers: Blocker[];
      drained: string[];
    })
  | null {
  const deferred = deferredUntil(e, now, policy);
  if (!deferred) return null;
  return ({ blockers, drained }) => ({
    drained,
    blockers: blockers.map((b) =>
      b.reason === "drainPending"
        ? { vm: b.vm, reason: "maintenanceWindow", detail: deferred.why }
        : b,
    ),
  });
}

/** Which window rule applied to the event, in words (status, explain); null without windows. */
export function windowNote(e: EventRecord, now: number, policy: Policy): string | null {
  if (!policy.maintenanceWindows) return null;
  // Once approved or started, the rule as it stood then (NotBefore is kept after it started).
  const at = e.approvedAt ?? e.startedAt ?? now;
  const d = decideWindow(
    policy,
    {
      eventType: e.eventType,
      notBefore: e.notBefore,
      firstSeenAt: e.firstSeenAt,
      advisory: isAdvisoryEvent(e),
    },
    at,
  );
  const text = describeWindow(d);
  return isDeferred(d) && at !== now ? `${text} (approved or started before that)` : text;
}

/** Beyond this the relay is not told of more deferred events (the directive's bound). */
const MAX_DEFERRED_IDS = 100;

/**
 * What a relay of a cluster with windows is told with every answer: the events of its document
 * whose drain is deferred, and for how long from now. Always at least one directive (naming none
 * when nothing is deferred): that the cluster has windows is what makes the relay wait for the
 * answer about a new event before draining it. Nothing at all without windows.
 */
export function deferDirectives(
  state: ClusterState,
  docEvents: ReadonlyMap<string, ScheduledEvent>,
  now: number,
  policy: Policy,
): DeferDirective[] {
  const windows = policy.maintenanceWindows;
  if (!windows) return [];
  const out: DeferDirective[] = [];
  for (const [key, seen] of docEvents) {
    const e = state.events[key];
    const d = e ? deferredUntil(e, now, policy) : null;
    if (d && out.length < MAX_DEFERRED_IDS)
      out.push({
        kind: "defer",
        eventIds: [seen.EventId],
        untilSeconds: Math.ceil((d.until - now) / 1000),
        reason: d.why.slice(0, 512),
      });
  }
  const exemptEventTypes = windows.exemptEventTypes;
  if (out.length === 0) return [{ kind: "defer", eventIds: [], untilSeconds: 0, exemptEventTypes }];
  return out.map((d) => ({ ...d, exemptEventTypes }));
}

/**
 * When the event's drain may start: first sight, or what a maintenance window made it (for a
 * "blocked" alert, which counts from then: a planned wait for a window is not a block).
 */
export function drainStartAt(e: EventRecord, policy: Policy): number {
  if (!policy.maintenanceWindows) return e.firstSeenAt;
  const d = eventWindow(e, Number.POSITIVE_INFINITY, policy);
  return d.kind === "inWindow" || d.kind === "latestStart" ? d.from : e.firstSeenAt;
}
