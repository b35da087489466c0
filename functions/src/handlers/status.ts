import type { HttpResponseInit } from "@azure/functions";
import { ClusterName, EventIdText, type Result } from "@quiesce/protocol";
import { eventKey } from "@quiesce/protocol/imds";
import {
  CLUSTER_QUERY_NAMES,
  ClusterQuery,
  parseQuery,
  STATUS_QUERY_NAMES,
  StatusQuery,
} from "@quiesce/protocol/status";
import { clusterPage } from "../status/clusterPage";
import { readEventDetail } from "../status/eventDetail";
import { decodeEventToken, decodeMemberToken } from "../status/paging";
import { statusPage } from "../status/statusPage";
import { collectUnreadable, encodeKey, StatusQueries, withUnreadableRows } from "../store";
import { type Handler, withAuth } from "./compose";
import type { HandlerDeps } from "./deps";
import { json, problem } from "./http";

const BAD_TOKEN = "invalid continuation: is not a continuation token from this API";

/**
 * GET /api/status?cluster=&phase=&state=&limit=&continuation=: cluster summaries and one page
 * of events (docs/coordinator.md). Bad parameters are a 400 naming the parameter.
 */
export function statusHandler(deps: HandlerDeps): Handler {
  const queries = new StatusQueries(deps.store.tables, deps.store.memberRows);
  return withAuth(deps, "reader", async (request) => {
    const q = parseQuery(StatusQuery, request.query, STATUS_QUERY_NAMES);
    if (!q.ok) return problem(400, q.error);
    const token = q.value.continuation;
    const after = token === undefined ? null : decodeEventToken(token);
    if (token !== undefined && after === null) return problem(400, BAD_TOKEN);
    const page = await collectUnreadable(() => statusPage(deps, queries, q.value, after));
    return json(200, withUnreadableRows(page.value, page.unreadable));
  });
}

/** GET /api/clusters/{cluster}?limit=&continuation=: one cluster, a page of its members. */
export function clusterHandler(deps: HandlerDeps): Handler {
  const queries = new StatusQueries(deps.store.tables, deps.store.memberRows);
  return withAuth(deps, "reader", async (request) => {
    const name = ClusterName.safeParse(request.params.cluster ?? "");
    if (!name.success) return problem(400, `invalid cluster: ${name.error.issues[0]?.message}`);
    const q = parseQuery(ClusterQuery, request.query, CLUSTER_QUERY_NAMES);
    if (!q.ok) return problem(400, q.error);
    const token = q.value.continuation;
    const after = token === undefined ? null : decodeMemberToken(token);
    if (token !== undefined && after === null) return problem(400, BAD_TOKEN);
    const cluster = name.data;
    const { value: page, unreadable } = await collectUnreadable(() =>
      clusterPage(deps, queries, cluster, q.value, after),
    );
    if (!page) return problem(404, `cluster ${cluster} is not known: no relay has reported for it`);
    return json(200, withUnreadableRows(page, unreadable));
  });
}

/** Where an event lives, or the answer saying why it cannot be found. */
export type EventLookup = Result<{ cluster: string; key: string }, HttpResponseInit>;

const refuse = (status: number, error: string): EventLookup => ({
  ok: false,
  error: problem(status, error),
});

/** Validates {eventId} and ?cluster / body cluster, and finds which cluster holds the event. */
export async function findEvent(
  deps: HandlerDeps,
  rawEventId: string | undefined,
  rawCluster: string | null | undefined,
): Promise<EventLookup> {
  const id = EventIdText.safeParse(rawEventId ?? "");
  if (!id.success) return refuse(400, `invalid eventId: ${id.error.issues[0]?.message}`);
  const key = eventKey(id.data);
  if (rawCluster !== null && rawCluster !== undefined) {
    const c = ClusterName.safeParse(rawCluster);
    if (!c.success) return refuse(400, `invalid cluster: ${c.error.issues[0]?.message}`);
    if (!(await deps.store.hasEvent(c.data, key)))
      return refuse(404, `event ${id.data} is not known in cluster ${c.data}`);
    return { ok: true, value: { cluster: c.data, key } };
  }
  const clusters = await deps.store.findEventClusters(key);
  if (clusters.length === 0) return refuse(404, `event ${id.data} is not known in any cluster`);
  if (clusters.length > 1)
    return refuse(
      409,
      `event ${id.data} is known in clusters ${clusters.join(", ")}: add ?cluster=NAME`,
    );
  return { ok: true, value: { cluster: clusters[0] as string, key } };
}

/** GET /api/events/{eventId}?cluster=NAME: state, timeline, and what it waits for on which VMs. */
export function eventHandler(deps: HandlerDeps): Handler {
  const queries = new StatusQueries(deps.store.tables, deps.store.memberRows);
  return withAuth(deps, "reader", async (request) => {
    const found = await findEvent(deps, request.params.eventId, request.query.get("cluster"));
    if (!found.ok) return found.error;
    const { cluster, key } = found.value;
    const { value: detail, unreadable } = await collectUnreadable(() =>
      readEventDetail(deps, queries, cluster, key),
    );
    const own = unreadable.find((u) => u.table === "Events" && u.rowKey === encodeKey(key));
    if (!detail && own)
      return problem(
        409,
        `event ${request.params.eventId}'s stored row cannot be read (${own.problem}): it is quarantined, never approved early (docs/coordinator.md, "Unreadable rows")`,
      );
    if (!detail) return problem(404, `event ${request.params.eventId} is no longer known`);
    return json(200, withUnreadableRows(detail, unreadable));
  });
}
