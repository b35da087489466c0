import { withEntry } from "@quiesce/protocol";
import { eventKey } from "@quiesce/protocol/imds";
import type { Policy } from "@quiesce/protocol/policy";
import type { PublishedObservation } from "@quiesce/protocol/published";
import { evaluateAll } from "../lifecycle/evaluate";
import { eventHead, firstSight, relayGaveNotBefore, UNDECIDED } from "../lifecycle/observe";
import type { ClusterState, EventRecord, Transition } from "../model/state";
import type { Decision } from "../model/types";
import type { EvaluationInputs } from "../rules/gates";
import { joinHead, joinResources, joinView } from "../rules/publishedJoin";

/**
 * An event as Azure published it off the VM (Event Grid delivery, Resource Graph row), applied to
 * the cluster it belongs to. The relays' views stay the authority on what each VM sees and did;
 * the published view only ever:
 * - adds VMs to `Resources` (never removes one: only a VM's own relay can, resources.ts), and not
 *   one whose own relay already reported it gone;
 * - moves the status forward (Scheduled → Started → Canceled → Completed: should both terminal
 *   statuses come, Completed stands), so a duplicate or a late delivery changes nothing;
 * - ends the event when Azure says it is over (`Completed`, `Canceled`): as if it left every
 *   document. Recover hooks still run only when each relay's own document drops it (relays run
 *   them themselves; the coordinator only restores load balancers after their recover);
 * - sets `NotBefore` from the newest Scheduled delivery, whenever it arrives, unless a relay's
 *   document gave one (IMDS is the fresher source).
 * Every field is the join of the deliveries so far (publishedJoin.ts): any order and repetition of
 * the same deliveries stores the same event, and decides "unannounced" alike (no source ever
 * showed it Scheduled).
 * It never marks a VM drained: readiness rows come from relays and the coordinator's own hooks.
 */

const SOURCE_NAME = { eventGrid: "Event Grid", resourceGraph: "Resource Graph" } as const;

export function applyPublished(
  state: ClusterState,
  obs: PublishedObservation,
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
    transitions,
    forget: [],
  };
}

/** The event's ARM scope as Azure spells it (ARM ids compare without regard to case; `obs.scope.id` is lower case). */
const scopeOf = (obs: PublishedObservation) =>
  `/subscriptions/${obs.scope.subscriptionId}/resourceGroups/${obs.scope.resourceGroup}/providers/Microsoft.Compute/${obs.scope.kind}/${obs.scope.name}`;

/** Statuses that say the event started: `Completed` too, even when `Started` was never delivered. */
const RAN = new Set(["Started", "Completed"]);
/** Statuses that say the event was announced: only a scheduled event can be cancelled. */
const ANNOUNCED = new Set(["Scheduled", "Canceled"]);

/** A new record is the join of the first delivery with an event nobody knew anything of. */
function createPublished(
  obs: PublishedObservation,
  now: number,
  transitions: Transition[],
): EventRecord {
  const ev = obs.event;
  const started = RAN.has(ev.EventStatus);
  const by = SOURCE_NAME[obs.source];
  const unknown: EventRecord = {
    ...eventHead(ev),
    // No relay view yet: the first relay's document (its incarnation) takes over the guard.
    resources: [],
    resourcesIncarnation: null,
    namedAtIncarnation: [],
    resourcesLeft: [],
    resourceDisputes: [],
    status: "Scheduled",
    notBefore: null,
    ...firstSight(now, by, started),
    leftAt: null,
    ...UNDECIDED,
    failedApprovers: [],
  };
  const created = mergePublished(unknown, obs, now, []);
  transitions.push({
    eventKey: created.key,
    at: now,
    from: null,
    to: started ? "Unplanned" : "Observed",
    reason: `${ev.EventType} ${ev.EventStatus} published by Azure through ${by} for ${created.resources.join(", ") || "no VM"} (${obs.scope.id}); no relay had reported it`,
  });
  return created;
}

function mergePublished(
  stored: EventRecord,
  obs: PublishedObservation,
  now: number,
  transitions: Transition[],
): EventRecord {
  const ev = obs.event;
  const by = SOURCE_NAME[obs.source];
  let e = stored;
  const note = (reason: string) =>
    transitions.push({ eventKey: e.key, at: now, from: e.phase, to: e.phase, reason });

  const { resources, added } = joinResources(e, ev.Resources);
  if (resources !== e.resources) e = { ...e, resources };
  if (added.length > 0) note(`${added.join(", ")} added to Resources by ${by}`);

  const head = joinHead(e, ev);
  if (
    head.eventType !== e.eventType ||
    head.eventSource !== e.eventSource ||
    head.durationInSeconds !== e.durationInSeconds ||
    head.description !== e.description
  )
    e = { ...e, ...head };

  if (RAN.has(ev.EventStatus) && e.status !== "Started")
    e = { ...e, status: "Started", startedAt: e.startedAt ?? now };
  // Unannounced means no source ever showed it Scheduled, whenever that delivery arrives: a late
  // one turns an Unplanned event into one Azure started at NotBefore (phase.ts).
  if (ANNOUNCED.has(ev.EventStatus) && e.firstSeenStarted) {
    e = { ...e, firstSeenStarted: false };
    note(`a ${by} delivery shows it was announced (${ev.EventStatus}) before it started`);
  }

  const published = joinView(e.published, obs, scopeOf(obs), now);
  if (published !== e.published) e = { ...e, published };
  // NotBefore: a relay's when one reported it (observe.ts), else the newest Scheduled delivery's.
  const announced = published.scheduled;
  if (
    announced &&
    !relayGaveNotBefore(e) &&
    (e.notBefore !== announced.notBefore || e.notBeforeFrom !== "published")
  )
    e = { ...e, notBefore: announced.notBefore, notBeforeFrom: "published" };

  if ((published.status === "Completed" || published.status === "Canceled") && e.leftAt === null) {
    e = { ...e, leftAt: now };
    note(`Azure reports it ${published.status} through ${by}: it is over for every VM it names`);
  }
  // Taken for cancelled (a Canceled delivery, or it left every document while Scheduled), but
  // Azure says it ran: decided again as an event that ran (its recovers are awaited).
  if (published.status === "Completed" && e.phase === "Cancelled") {
    transitions.push({
      eventKey: e.key,
      at: now,
      from: e.phase,
      to: "Recovering",
      reason: `Azure reports it Completed through ${by}: it ran, it was not cancelled`,
    });
    e = { ...e, phase: "Recovering", phaseSince: now, endedAt: null };
  }
  return e;
}
