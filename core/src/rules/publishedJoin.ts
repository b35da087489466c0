import { notBeforeMs } from "@quiesce/protocol/imds";
import type { PublishedObservation } from "@quiesce/protocol/published";
import { PUBLISHED_RANK, type PublishedView } from "../model/publishedView";
import { type EventRecord, memberKey } from "../model/state";

/**
 * The join of published deliveries (Event Grid, Resource Graph): each function takes what is
 * stored and one delivery and returns the least upper bound of the two, so applying deliveries in
 * any order, any number of times, gives the same result (commutative, associative, idempotent;
 * core/test/published.property.test.ts). Each returns what it was given when nothing changed, so
 * a duplicate writes nothing.
 */

type Delivery = Pick<PublishedView, "status" | "source" | "scope" | "observedAt">;

const cmp = <T extends string | number>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
/** A delivery without Azure's time counts as older than any with one. */
const time = (t: number | null) => t ?? Number.NEGATIVE_INFINITY;

/** A total order on deliveries: status, then Azure's time, then channel and scope (any fixed tie-break). */
export function compareDeliveries(a: Delivery, b: Delivery): number {
  return (
    PUBLISHED_RANK[a.status] - PUBLISHED_RANK[b.status] ||
    cmp(time(a.observedAt), time(b.observedAt)) ||
    cmp(a.source, b.source) ||
    cmp(a.scope, b.scope)
  );
}

type Scheduled = NonNullable<PublishedView["scheduled"]>;
const newerScheduled = (a: Scheduled, b: Scheduled) =>
  cmp(time(a.observedAt), time(b.observedAt)) || cmp(time(a.notBefore), time(b.notBefore));

/** The stored view joined with one delivery; `now` only dates a status the view takes for the first time. */
export function joinView(
  prev: PublishedView | undefined,
  obs: PublishedObservation,
  scope: string,
  now: number,
): PublishedView {
  const ev = obs.event;
  const incoming: Delivery = {
    status: ev.EventStatus,
    source: obs.source,
    scope,
    observedAt: obs.observedAt,
  };
  const top = !prev || compareDeliveries(incoming, prev) > 0 ? incoming : prev;
  const offered: Scheduled | undefined =
    ev.EventStatus === "Scheduled"
      ? { notBefore: notBeforeMs(ev), observedAt: obs.observedAt }
      : undefined;
  const scheduled =
    offered && (!prev?.scheduled || newerScheduled(offered, prev.scheduled) > 0)
      ? offered
      : prev?.scheduled;
  if (prev && top === prev && scheduled === prev.scheduled) return prev;
  return {
    status: top.status,
    source: top.source,
    scope: top.scope,
    observedAt: top.observedAt,
    receivedAt: prev && prev.status === top.status ? prev.receivedAt : now,
    ...(scheduled ? { scheduled } : {}),
  };
}

/**
 * `Resources` joined with a delivery's: a union, never a removal. Before any relay reported the
 * event the list is the published deliveries' alone, kept sorted (by name without case, each
 * spelled its least way), so it does not depend on which came first. Once relays report, their
 * views order and spell it (resources.ts), and a delivery only appends the VMs it adds, never one
 * whose own relay reported it no longer named.
 */
export function joinResources(
  e: EventRecord,
  names: readonly string[],
): { resources: string[]; added: string[] } {
  const byKey = new Map<string, string>();
  for (const n of e.resources) if (!byKey.has(memberKey(n))) byKey.set(memberKey(n), n);
  const sorted = (m: Map<string, string>) =>
    [...m.entries()].sort(([a], [b]) => cmp(a, b)).map(([, n]) => n);
  if (e.resourcesIncarnation == null) {
    const added: string[] = [];
    for (const n of names) {
      const k = memberKey(n);
      const had = byKey.get(k);
      if (had === undefined) added.push(n);
      if (had === undefined || n < had) byKey.set(k, n);
    }
    const resources = sorted(byKey);
    const same =
      resources.length === e.resources.length && resources.every((n, i) => n === e.resources[i]);
    return { resources: same ? e.resources : resources, added };
  }
  const gone = new Set((e.resourcesLeft ?? []).map((l) => l.vm));
  const fresh = new Map<string, string>();
  for (const n of names) {
    const k = memberKey(n);
    if (byKey.has(k) || gone.has(k)) continue;
    const had = fresh.get(k);
    if (had === undefined || n < had) fresh.set(k, n);
  }
  const added = sorted(fresh);
  return { resources: added.length > 0 ? [...e.resources, ...added] : e.resources, added };
}

type Head = Pick<EventRecord, "eventType" | "eventSource" | "durationInSeconds" | "description">;

/**
 * What Azure says the event is (type, source, duration, description), joined with a delivery's.
 * Azure does not change them during an event's life, but a delivery may leave one out. A relay's
 * document is the authority once one reported the event (observe.ts): a delivery then only fills
 * a field no document gave. Before that, where two deliveries disagree the join picks one by a
 * fixed rule: the least text (`Platform` before `User`: an unannounced event is then alerted on,
 * not taken for a user's own restart), the longest duration (no shorter-than-true Freeze is
 * auto-approved).
 */
export function joinHead(e: EventRecord, ev: PublishedObservation["event"]): Head {
  const relayed = e.resourcesIncarnation != null;
  const least = (a: string | null, b: string | null | undefined) =>
    b == null ? a : a === null || (!relayed && b < a) ? b : a;
  const most = (a: number | null, b: number | null | undefined) =>
    b == null ? a : a === null || (!relayed && b > a) ? b : a;
  return {
    eventType: relayed ? e.eventType : (least(e.eventType, ev.EventType) ?? e.eventType),
    eventSource: least(e.eventSource, ev.EventSource),
    durationInSeconds: most(e.durationInSeconds, ev.DurationInSeconds),
    description: least(e.description, ev.Description),
  };
}
