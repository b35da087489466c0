import {
  type ClusterState,
  type EventRecord,
  IN_FLIGHT,
  type Member,
  memberKey,
  type Readiness,
} from "@quiesce/core";
import { type Dict, dict } from "@quiesce/protocol";
import type { Policy } from "@quiesce/protocol/policy";
import type { EventView } from "@quiesce/protocol/status";
import { type EventHead, mapLimit, type StatusQueries } from "../store";
import type { RefusedLookup } from "./refusedReports";
import { eventView } from "./views";

/**
 * The state `explain` needs to say what some events wait for, read for those events only: their
 * rows, their readiness, the members they name, and enough of the events in flight to judge the
 * cluster's budget (maxEventsInFlight + 1 of them answer "is the budget used up?" exactly as all
 * of them would, and name who uses it).
 */

export interface EventsToExplain {
  state: ClusterState;
  /** The requested events that still exist, in the order asked. */
  records: EventRecord[];
}

const WAITS_ON_BUDGET = new Set(["Observed", "Draining", "Ready"]);
/**
 * A status read point-reads the members its events name up to this many; past it, one query of
 * the cluster's members is cheaper. Not the report path's bound (REPORT_POINT_READS in
 * store/reportRows.ts): that one is set for what every report costs, this one for one page.
 */
const STATUS_MEMBER_POINT_READS = 64;

export async function loadEventsToExplain(
  queries: StatusQueries,
  cluster: string,
  keys: readonly string[],
  policy: Policy,
  opts: {
    /** Every member of the cluster, when the caller read them already. */
    members?: readonly Member[];
    /** The cluster's active event heads, when the caller read them already. */
    activeHeads?: readonly EventHead[];
    /** Read readiness of ended events too (an event's detail shows it). */
    readinessOfEnded?: boolean;
  } = {},
): Promise<EventsToExplain> {
  // With the heads at hand (the pages), what to read besides the rows is known up front, so
  // rows, readiness and the events in flight are read at once rather than one after another.
  const asked = new Set(keys);
  const heads = opts.activeHeads;
  const activeAsked = heads?.filter((h) => asked.has(h.key));
  const readinessKeys = opts.readinessOfEnded ? keys : activeAsked?.map((h) => h.key);
  const inFlightKeys = activeAsked?.some((h) => WAITS_ON_BUDGET.has(h.phase))
    ? inFlightOf(heads ?? [], policy).filter((k) => !asked.has(k))
    : heads && [];
  const readReadiness = (ks: readonly string[]) =>
    mapLimit(ks, 16, async (k) => [k, await queries.readiness(cluster, k)] as const);
  const [records, early, inFlightEarly] = await Promise.all([
    queries.events(cluster, keys),
    readinessKeys ? readReadiness(readinessKeys) : null,
    inFlightKeys ? queries.events(cluster, inFlightKeys) : null,
  ]);
  const events = dict<EventRecord>();
  for (const r of records) events[r.key] = r;
  const readiness = dict<Dict<Readiness>>(
    early ?? (await readReadiness(records.filter((r) => r.endedAt === null).map((r) => r.key))),
  );
  let inFlight = inFlightEarly;
  if (!inFlight && records.some((r) => r.endedAt === null && WAITS_ON_BUDGET.has(r.phase))) {
    const all = await queries.eventHeads({ cluster, ended: false });
    inFlight = await queries.events(
      cluster,
      inFlightOf(all, policy).filter((k) => !asked.has(k)),
    );
  }
  for (const r of inFlight ?? []) events[r.key] ??= r;

  const members = dict<Member>();
  if (opts.members) for (const m of opts.members) members[memberKey(m.vmName)] = m;
  else {
    const named = new Set<string>();
    for (const r of records) for (const vm of r.resources) named.add(memberKey(vm));
    for (const rows of Object.values(readiness)) for (const mk of Object.keys(rows)) named.add(mk);
    const found =
      named.size > STATUS_MEMBER_POINT_READS
        ? ((await queries.members(cluster)).get(cluster) ?? [])
        : await queries.membersNamed(cluster, [...named]);
    for (const m of found) members[memberKey(m.vmName)] = m;
  }
  return { state: { cluster, members, events, readiness }, records };
}

/** Enough of the events in flight to judge the budget: maxEventsInFlight + 1, oldest first. */
function inFlightOf(heads: readonly EventHead[], policy: Policy): string[] {
  return heads
    .filter((h) => h.endedAt === null && IN_FLIGHT.has(h.phase))
    .sort((a, b) => a.firstSeenAt - b.firstSeenAt)
    .slice(0, policy.maxEventsInFlight + 1)
    .map((h) => h.key);
}

export function eventViews(
  loaded: EventsToExplain,
  now: number,
  policy: Policy,
  refused?: RefusedLookup,
): EventView[] {
  return loaded.records.map((r) => eventView(loaded.state, r, now, policy, refused));
}

/** Views of one cluster's events, one per key asked: null for an event gone meanwhile. */
export async function viewsByKey(
  queries: StatusQueries,
  cluster: string,
  keys: readonly string[],
  policy: Policy,
  now: number,
  opts: Parameters<typeof loadEventsToExplain>[4] = {},
  refused?: RefusedLookup,
): Promise<Array<EventView | null>> {
  const loaded = await loadEventsToExplain(queries, cluster, keys, policy, opts);
  const byKey = new Map<string, EventView>();
  for (const r of loaded.records)
    byKey.set(r.key, eventView(loaded.state, r, now, policy, refused));
  return keys.map((k) => byKey.get(k) ?? null);
}
