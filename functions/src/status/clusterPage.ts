import { isLive, memberKey } from "@quiesce/core";
import { type ClusterPage, type ClusterQuery, STATUS_LIMITS } from "@quiesce/protocol/status";
import type { EventHead, StatusQueries } from "../store";
import { withControlPlaneApproval } from "./controlPlaneApproval";
import type { StatusDeps } from "./deps";
import { viewsByKey } from "./eventViews";
import { summarizeCluster } from "./groups";
import {
  encodeToken,
  type MemberPosition,
  nextSlice,
  VIEW_BATCH,
  viewsWithinBytes,
  withinBytes,
} from "./paging";
import { iso, memberView } from "./views";

/**
 * GET /api/clusters/{cluster}: the summary, one page of members (the cluster's members are read
 * once: the summary counts them all), the oldest active events and the latest ended ones.
 * Null when the cluster has neither members nor events.
 */
export async function clusterPage(
  deps: StatusDeps,
  queries: StatusQueries,
  cluster: string,
  q: ClusterQuery,
  after: MemberPosition | null,
): Promise<ClusterPage | null> {
  const [membersByCluster, heads] = await Promise.all([
    queries.members(cluster),
    queries.eventHeads({ cluster }),
  ]);
  const members = membersByCluster.get(cluster) ?? [];
  if (members.length === 0 && heads.length === 0) return null;
  const now = deps.clock.now();
  const policy = deps.policies.for(cluster);

  const active = heads
    .filter((h) => h.endedAt === null)
    .sort((a, b) => a.firstSeenAt - b.firstSeenAt || compareKeys(a, b));
  const ended = heads
    .filter((h) => h.endedAt !== null)
    .sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0) || compareKeys(a, b));
  const viewsOf = async (heads: EventHead[]) =>
    (
      await viewsWithinBytes(heads, VIEW_BATCH, STATUS_LIMITS.pageBytes, (part) =>
        viewsByKey(
          queries,
          cluster,
          part.map((h) => h.key),
          policy,
          now,
          { members, activeHeads: active },
          deps.refusedReports?.lookup(cluster),
        ),
      )
    ).shown.map((x) => x.view);

  const sorted = members
    .map((m) => ({ key: memberKey(m.vmName), m }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const { slice, more } = nextSlice(sorted, after ? (x) => x.key > after.m : null, q.limit);
  const page = withinBytes(
    slice.map((x) => ({ key: x.key, view: memberView(x.m, now, policy) })),
    STATUS_LIMITS.pageBytes,
  );
  const lastKey = (page.cut ? page.kept : slice).at(-1)?.key;

  const [activeEvents, recentEndedEvents] = await Promise.all([
    viewsOf(active.slice(0, STATUS_LIMITS.clusterActiveEvents)),
    viewsOf(ended.slice(0, STATUS_LIMITS.clusterRecentEnded)),
  ]);
  return {
    now: iso(now) as string,
    ...(await withControlPlaneApproval(
      deps,
      summarizeCluster(
        cluster,
        members,
        (m) => isLive(m, now, policy),
        active.length,
        STATUS_LIMITS.groupsPerCluster,
      ),
    )),
    members: page.kept.map((x) => x.view),
    continuation: (page.cut || more) && lastKey !== undefined ? encodeToken({ m: lastKey }) : null,
    activeEvents,
    recentEndedEvents,
    policy,
  };
}

const compareKeys = (a: EventHead, b: EventHead) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
