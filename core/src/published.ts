import { withEntry } from "@quiesce/protocol";
import { eventKey, notBeforeMs } from "@quiesce/protocol/imds";
import type { ControlPlaneObservation } from "@quiesce/protocol/maintenance";
import type { Policy } from "@quiesce/protocol/policy";
import { evaluateAll } from "./evaluate";
import type { EvaluationInputs } from "./gates";
import { eventHead, firstSight, UNDECIDED } from "./observe";
import { PUBLISHED_RANK, type PublishedView } from "./publishedView";
import { type ClusterState, type EventRecord, memberKey, type Transition } from "./state";
import type { Decision } from "./types";

/**
 * An event as Azure published it off the VM (Event Grid delivery, Resource Graph row), applied to
 * the cluster it belongs to. The relays' views stay the authority on what each VM sees and did;
 * the published view only ever:
 * - adds VMs to `Resources` (never removes one: only a VM's own relay can, resources.ts), and not
 *   one whose own relay already reported it gone;
 * - moves the status forward (Scheduled → Started → Completed | Canceled), so a duplicate or a
 *   late delivery changes nothing;
 * - ends the event when Azure says it is over (`Completed`, `Canceled`): as if it left every
 *   document. Recover hooks still run only when each relay's own document drops it (relays run
 *   them themselves; the coordinator only restores load balancers after their recover);
 * - sets `NotBefore` while no relay has reported the event, from the newest delivery only.
 * It never marks a VM drained: readiness rows come from relays and the coordinator's own hooks.
 */

const SOURCE_NAME = { eventGrid: "Event Grid", resourceGraph: "Resource Graph" } as const;

export function applyPublished(
  state: ClusterState,
  obs: ControlPlaneObservation,
  now: number,
  policy: Policy,
  inputs: EvaluationInputs = {},
): Decision {
  const key = eventKey(obs.event.EventId);
  const transitions: Transition[] = [];
  const stored = state.events[key];
  const quarantined = state.unreadableEvents?.[key] !== undefined;
  const next = quarantined
    ? stored
    : stored
      ? mergePublished(stored, obs, now, transitions)
      : createPublished(obs, now, transitions);
  let after: ClusterState =
    next === stored || next === undefined
      ? state
      : { ...state, events: withEntry(state.events, key, next) };
  if (next !== undefined) {
    const evaluated = evaluateAll(after, now, policy, null, new Set([key]), inputs);
    after = evaluated.state;
    transitions.push(...evaluated.transitions);
  }
  return {
    state: after,
    directives: [],
    transitions,
    applied: next !== stored,
    nextReportInSeconds: policy.idleReportSeconds,
    forget: [],
  };
}

function view(obs: ControlPlaneObservation, now: number): PublishedView {
  return {
    status: obs.event.EventStatus,
    source: obs.source,
    // As Azure spells it (ARM ids compare without regard to case; the id in `obs.scope` is lower case).
    scope: `/subscriptions/${obs.scope.subscriptionId}/resourceGroups/${obs.scope.resourceGroup}/providers/Microsoft.Compute/${obs.scope.kind}/${obs.scope.name}`,
    observedAt: obs.observedAt,
    receivedAt: now,
  };
}

const uniqueNames = (names: readonly string[]) => {
  const seen = new Set<string>();
  return names.filter((n) => !seen.has(memberKey(n)) && seen.add(memberKey(n)));
};

function createPublished(
  obs: ControlPlaneObservation,
  now: number,
  transitions: Transition[],
): EventRecord {
  const ev = obs.event;
  const key = eventKey(ev.EventId);
  const ended = ev.EventStatus === "Completed" || ev.EventStatus === "Canceled";
  const started = ev.EventStatus === "Started";
  const by = SOURCE_NAME[obs.source];
  const resources = uniqueNames(ev.Resources);
  transitions.push({
    eventKey: key,
    at: now,
    from: null,
    to: started ? "Unplanned" : "Observed",
    reason: `${ev.EventType} ${ev.EventStatus} published by Azure through ${by} for ${resources.join(", ") || "no VM"} (${obs.scope.id}); no relay had reported it`,
  });
  return {
    ...eventHead(ev),
    // No relay view yet: the first relay's document (its incarnation) takes over the guard.
    resources,
    resourcesIncarnation: null,
    namedAtIncarnation: [],
    resourcesLeft: [],
    resourceDisputes: [],
    status: started || ev.EventStatus === "Completed" ? "Started" : "Scheduled",
    notBefore: ev.EventStatus === "Scheduled" ? notBeforeMs(ev) : null,
    ...firstSight(now, by, started),
    leftAt: ended ? now : null,
    ...UNDECIDED,
    failedApprovers: [],
    published: view(obs, now),
  };
}

function mergePublished(
  stored: EventRecord,
  obs: ControlPlaneObservation,
  now: number,
  transitions: Transition[],
): EventRecord {
  const ev = obs.event;
  const by = SOURCE_NAME[obs.source];
  let e = stored;
  const note = (reason: string) =>
    transitions.push({ eventKey: e.key, at: now, from: e.phase, to: e.phase, reason });
  // The published view moves only forward; within one status, a later delivery may still bring
  // a newer NotBefore.
  const ahead = !e.published || PUBLISHED_RANK[ev.EventStatus] > PUBLISHED_RANK[e.published.status];
  const newer =
    ahead ||
    (obs.observedAt !== null &&
      e.published?.observedAt != null &&
      obs.observedAt > e.published.observedAt &&
      PUBLISHED_RANK[ev.EventStatus] === PUBLISHED_RANK[e.published.status]);

  // Resources: additions only, never a VM whose own relay said it is no longer named.
  const gone = new Set((e.resourcesLeft ?? []).map((l) => l.vm));
  const known = new Set(e.resources.map(memberKey));
  const added = uniqueNames(ev.Resources).filter(
    (n) => !known.has(memberKey(n)) && !gone.has(memberKey(n)),
  );
  if (added.length > 0) {
    e = { ...e, resources: [...e.resources, ...added] };
    note(`${added.join(", ")} added to Resources by ${by}`);
  }
  // A delivery that arrived late shows the event was announced: it was not unannounced.
  if (
    ev.EventStatus === "Scheduled" &&
    e.firstSeenStarted &&
    e.resourcesIncarnation == null &&
    e.approvedAt === null
  ) {
    e = { ...e, firstSeenStarted: false, notBefore: notBeforeMs(ev) ?? e.notBefore };
    if (e.phase === "Unplanned") e = { ...e, phase: "ExpiredAtNotBefore", phaseSince: now };
    note(`a late ${by} delivery shows it was Scheduled before it started`);
  }
  if ((ev.EventStatus === "Started" || ev.EventStatus === "Completed") && e.status !== "Started")
    e = { ...e, status: "Started" };
  if (
    ev.EventStatus === "Scheduled" &&
    e.status === "Scheduled" &&
    e.resourcesIncarnation == null &&
    newer
  ) {
    const nb = notBeforeMs(ev);
    if (nb !== null && nb !== e.notBefore) e = { ...e, notBefore: nb };
  }
  if (e.eventSource === null && ev.EventSource) e = { ...e, eventSource: ev.EventSource };
  if (e.durationInSeconds === null && ev.DurationInSeconds !== undefined)
    e = { ...e, durationInSeconds: ev.DurationInSeconds };
  if (e.description === null && ev.Description) e = { ...e, description: ev.Description };

  const terminal = ev.EventStatus === "Completed" || ev.EventStatus === "Canceled";
  if (ahead) e = { ...e, published: view(obs, now) };
  if (terminal && e.leftAt === null && e.published?.status === ev.EventStatus) {
    e = { ...e, leftAt: now };
    note(`Azure reports it ${ev.EventStatus} through ${by}: it is over for every VM it names`);
  }
  return e;
}
