import { type EventDetail, STATUS_LIMITS } from "@quiesce/protocol/status";
import type { StatusQueries } from "../store";
import type { StatusDeps } from "./deps";
import { eventViews, loadEventsToExplain } from "./eventViews";
import { historyView, iso, readinessView } from "./views";

/**
 * One event in detail: its row, its readiness, the members it names (point reads), the events in
 * flight when its budget matters, and the newest part of its timeline. Null when it is gone.
 */
export async function readEventDetail(
  deps: StatusDeps,
  queries: StatusQueries,
  cluster: string,
  key: string,
): Promise<EventDetail | null> {
  const policy = deps.policies.for(cluster);
  const [loaded, timeline] = await Promise.all([
    loadEventsToExplain(queries, cluster, [key], policy, { readinessOfEnded: true }),
    queries.timeline(cluster, key, STATUS_LIMITS.timeline),
  ]);
  const now = deps.clock.now();
  const view = eventViews(loaded, now, policy, deps.refusedReports?.lookup(cluster))[0];
  if (!view) return null;
  return {
    now: iso(now) as string,
    ...view,
    readiness: readinessView(loaded.state, key),
    timeline: historyView(timeline.rows),
    timelineTruncated: timeline.truncated,
  };
}
