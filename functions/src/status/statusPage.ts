import { isLive, type Member } from "@quiesce/core";
import {
  type ClusterSummary,
  type EventView,
  STATUS_LIMITS,
  type StatusPage,
  type StatusQuery,
} from "@quiesce/protocol/status";
import type { EventHead, StatusQueries } from "../store";
import { withControlPlaneApproval } from "./controlPlaneApproval";
import type { StatusDeps } from "./deps";
import { viewsByKey } from "./eventViews";
import { summarizeCluster } from "./groups";
import {
  compareEventPositions,
  type EventPosition,
  encodeToken,
  nextSlice,
  VIEW_BATCH,
  viewsWithinBytes,
} from "./paging";
import { iso } from "./views";

/**
 * GET /api/status: cluster summaries and one page of events. Reads, whatever the table's size:
 * the members (of the cluster asked, or all: summaries count them), the heads (a few columns)
 * of the active events (and of the ended ones when asked), then whole rows and readiness only
 * for the events on the page.
 */

const positionOf = (h: EventHead): EventPosition =>
  h.endedAt === null
    ? { s: 0, t: h.firstSeenAt, c: h.cluster, k: h.key }
    : { s: 1, t: -h.endedAt, c: h.cluster, k: h.key };

export async function statusPage(
  deps: StatusDeps,
  queries: StatusQueries,
  q: StatusQuery,
  after: EventPosition | null,
): Promise<StatusPage> {
  const [membersByCluster, activeHeads, endedHeads] = await Promise.all([
    queries.members(q.cluster),
    queries.eventHeads({ ...(q.cluster ? { cluster: q.cluster } : {}), ended: false }),
    q.state === "active"
      ? Promise.resolve([])
      : queries.eventHeads({
          ...(q.cluster ? { cluster: q.cluster } : {}),
          ended: true,
          ...(q.phase ? { phases: q.phase } : {}),
        }),
  ]);
  const now = deps.clock.now();

  const activeByCluster = new Map<string, EventHead[]>();
  for (const h of activeHeads) {
    const list = activeByCluster.get(h.cluster);
    if (list) list.push(h);
    else activeByCluster.set(h.cluster, [h]);
  }
  const names = [...new Set([...membersByCluster.keys(), ...activeByCluster.keys()])]
    .sort()
    .slice(0, STATUS_LIMITS.clusters);
  const clusters: ClusterSummary[] = await Promise.all(
    names.map((c) => {
      const policy = deps.policies.for(c);
      return withControlPlaneApproval(
        deps,
        summarizeCluster(
          c,
          membersByCluster.get(c) ?? [],
          (m: Member) => isLive(m, now, policy),
          activeByCluster.get(c)?.length ?? 0,
          STATUS_LIMITS.groupsPerCluster,
        ),
      );
    }),
  );

  const phases = q.phase ? new Set<string>(q.phase) : null;
  const candidates = [
    ...(q.state === "ended" ? [] : activeHeads.filter((h) => !phases || phases.has(h.phase))),
    ...endedHeads,
  ]
    .map((h) => ({ head: h, at: positionOf(h) }))
    .sort((a, b) => compareEventPositions(a.at, b.at));
  const { slice, more } = nextSlice(
    candidates,
    after ? (x) => compareEventPositions(x.at, after) > 0 : null,
    q.limit,
  );

  // Views per cluster (their state is per cluster), in the page's order, read batch by batch.
  const { shown, cut } = await viewsWithinBytes(
    slice,
    VIEW_BATCH,
    STATUS_LIMITS.pageBytes,
    async (part) => {
      const views = new Map<string, EventView | null>();
      for (const cluster of new Set(part.map((x) => x.head.cluster))) {
        const keys = part.filter((x) => x.head.cluster === cluster).map((x) => x.head.key);
        const policy = deps.policies.for(cluster);
        const built = await viewsByKey(
          queries,
          cluster,
          keys,
          policy,
          now,
          {
            members: membersByCluster.get(cluster) ?? [],
            activeHeads: activeByCluster.get(cluster) ?? [],
          },
          deps.refusedReports?.lookup(cluster),
        );
        keys.forEach((k, i) => {
          views.set(`${cluster}\u0000${k}`, built[i] ?? null);
        });
      }
      return part.map((x) => views.get(`${x.head.cluster}\u0000${x.head.key}`) ?? null);
    },
  );
  const last = cut ? shown.at(-1)?.head.at : slice.at(-1)?.at;
  return {
    now: iso(now) as string,
    clusters,
    events: shown.map((x) => x.view),
    continuation: (cut || more) && last ? encodeToken(last) : null,
  };
}
