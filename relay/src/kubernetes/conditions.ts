import { isAdvisory } from "@quiesce/protocol/imds";
import type { RelayState, TrackedEvent } from "../decisions/state";

/**
 * The Node lifecycle conditions of KEP-5683 (kubernetes/enhancements,
 * keps/sig-node/5683-lifecycle-conditions), pure: which of them the relay's state calls for, and
 * the status patch that writes them without touching anyone else's. The KEP defines the types and
 * their meaning (True: "the lifecycle state ... is currently observed on this Node"; clearing is
 * "setting the condition status to False or removing the condition") and leaves ownership open
 * ("Any authorized actor can write the Lifecycle Conditions"), so the rule here is Quiesce's own:
 *
 * - a condition is ours when its reason is one of REASONS and its message starts with PREFIX;
 * - we set a type True when it is absent, ours, or not True (False/Unknown says nothing is held);
 * - a True condition of another writer is never changed, and we set False only what is ours;
 * - a False we never wrote is never added: a node Quiesce has not acted on gets nothing.
 */

export const LIFECYCLE_TYPES = [
  "MaintenancePlanned",
  "DrainInProgress",
  "Drained",
  "MaintenanceInProgress",
] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

/** CamelCase cause categories, as the KEP asks; DrainCompleted is one of its example reasons. */
export const REASONS = {
  /** An Azure scheduled event names this node's VM (Planned, DrainInProgress, InProgress True). */
  scheduled: "ScheduledEvent",
  /** Quiesce's drain of the node succeeded (Drained True, DrainInProgress False). */
  drainCompleted: "DrainCompleted",
  drainFailed: "DrainFailed",
  /** The event is Started: maintenance is no longer planned but under way. */
  started: "MaintenanceStarted",
  /** The event left the document, or the coordinator ended it: nothing is planned any more. */
  ended: "ScheduledEventEnded",
} as const;
const OUR_REASONS: ReadonlySet<string> = new Set(Object.values(REASONS));
export const PREFIX = "Quiesce: ";

export type ConditionStatus = "True" | "False";

/** A NodeCondition as the API serves it (times RFC 3339). */
export interface NodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastHeartbeatTime?: string;
  readonly lastTransitionTime?: string;
}

export interface WantedCondition {
  readonly type: LifecycleType;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/**
 * A strategic merge patch of the node's status subresource: NodeStatus.conditions has
 * patchMergeKey `type`, so the entries here replace only the conditions of their type. The
 * resourceVersion makes it conditional (409 when the node changed since it was read).
 */
export interface NodeStatusPatch {
  metadata: { resourceVersion?: string };
  status: { conditions: NodeCondition[] };
}

const active = (r: TrackedEvent) =>
  r.goneAt === undefined && !r.recoverRequested && r.recover === undefined;

function describe(events: readonly TrackedEvent[]): string {
  const [first, ...more] = events;
  if (!first) return "";
  const e = first.event;
  const notBefore = e.NotBefore ? `, NotBefore ${e.NotBefore}` : "";
  const rest = more.length ? ` and ${more.length} more` : "";
  return `Azure scheduled event ${e.EventType} (EventId ${first.eventId}${notBefore})${rest}`;
}

/** The four conditions as the tracked events call for them, oldest event named first. */
export function wantedConditions(state: RelayState): WantedCondition[] {
  const events = Object.values(state.events)
    .filter(active)
    .sort((a, b) => a.firstSeenAt.localeCompare(b.firstSeenAt));
  const where = (f: (r: TrackedEvent) => boolean) => events.filter(f);
  // A Spot rebalance recommendation is a risk, not planned maintenance: it may drain the node
  // (QUIESCE_REBALANCE_ACTION), but it never makes MaintenancePlanned True.
  const scheduled = where((r) => r.event.EventStatus === "Scheduled" && !isAdvisory(r.event));
  const started = where((r) => r.event.EventStatus === "Started");
  const draining = where((r) => r.drain?.status === "running" || r.drain?.status === "interrupted");
  const drained = where((r) => r.drain?.status === "succeeded");
  const failed = where((r) => r.drain?.status === "failed");
  const want = (
    type: LifecycleType,
    status: ConditionStatus,
    reason: string,
    message: string,
  ): WantedCondition => ({ type, status, reason, message: `${PREFIX}${message}` });
  const ended = (type: LifecycleType) =>
    want(type, "False", REASONS.ended, "no Azure scheduled event of this node's VM is pending");
  return [
    scheduled.length
      ? want("MaintenancePlanned", "True", REASONS.scheduled, `${describe(scheduled)} is Scheduled`)
      : started.length
        ? want("MaintenancePlanned", "False", REASONS.started, `${describe(started)} has Started`)
        : ended("MaintenancePlanned"),
    draining.length
      ? want("DrainInProgress", "True", REASONS.scheduled, `draining for ${describe(draining)}`)
      : failed.length
        ? want(
            "DrainInProgress",
            "False",
            REASONS.drainFailed,
            `drain failed for ${describe(failed)}`,
          )
        : drained.length
          ? want(
              "DrainInProgress",
              "False",
              REASONS.drainCompleted,
              `drained for ${describe(drained)}`,
            )
          : ended("DrainInProgress"),
    drained.length && !draining.length && !failed.length
      ? want("Drained", "True", REASONS.drainCompleted, `drained for ${describe(drained)}`)
      : failed.length
        ? want("Drained", "False", REASONS.drainFailed, `drain failed for ${describe(failed)}`)
        : ended("Drained"),
    started.length
      ? want("MaintenanceInProgress", "True", REASONS.scheduled, `${describe(started)} has Started`)
      : ended("MaintenanceInProgress"),
  ];
}

export const isOurs = (c: NodeCondition | undefined): boolean =>
  c !== undefined && OUR_REASONS.has(c.reason ?? "") && (c.message ?? "").startsWith(PREFIX);

/** API times are whole seconds. */
export const rfc3339 = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * The conditions to write so the node shows `wanted`, under the ownership rule above; null when
 * it already does. lastTransitionTime moves only when the status changes; lastHeartbeatTime is
 * the time of this write.
 */
export function conditionsPatch(
  current: readonly NodeCondition[],
  wanted: readonly WantedCondition[],
  resourceVersion: string | undefined,
  nowMs: number,
): NodeStatusPatch | null {
  const now = rfc3339(nowMs);
  const writes: NodeCondition[] = [];
  for (const w of wanted) {
    const cur = current.find((c) => c.type === w.type);
    const ours = isOurs(cur);
    if (w.status === "True" && cur?.status === "True" && !ours) continue;
    if (w.status === "False" && (!ours || cur?.status === "False")) continue;
    if (ours && cur?.status === w.status && cur.reason === w.reason && cur.message === w.message)
      continue;
    const transition = cur?.status === w.status ? (cur.lastTransitionTime ?? now) : now;
    writes.push({ ...w, lastHeartbeatTime: now, lastTransitionTime: transition });
  }
  if (writes.length === 0) return null;
  return {
    metadata: resourceVersion ? { resourceVersion } : {},
    status: { conditions: writes },
  };
}
