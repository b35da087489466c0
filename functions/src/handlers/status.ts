import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { ClusterName, EventIdText, eventKey, policyFor } from "@quiesce/shared";
import { authenticate, denied, type HandlerDeps } from "./deps";
import { iso, json, problem } from "./http";
import { clusterSummary, eventView, historyView, readinessView } from "./views";

/** GET /api/status: every cluster, its members with liveness and its active events. */
export function statusHandler(deps: HandlerDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const auth = await authenticate(deps, request.headers.get("authorization"), "reader", context);
    if (!auth.ok) return denied(auth);
    const clusters = await deps.store.listClusters();
    const now = deps.clock.now();
    const views = [];
    for (const cluster of clusters) {
      const loaded = await deps.store.loadCluster(cluster);
      views.push(
        clusterSummary(loaded.state, now, policyFor(deps.settings.QUIESCE_POLICY, cluster)),
      );
    }
    return json(200, { now: iso(now), clusters: views });
  };
}

/** GET /api/clusters/{cluster}: one cluster in detail, with the policy in force. */
export function clusterHandler(deps: HandlerDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const auth = await authenticate(deps, request.headers.get("authorization"), "reader", context);
    if (!auth.ok) return denied(auth);
    const name = ClusterName.safeParse(request.params.cluster ?? "");
    if (!name.success) return problem(400, `invalid cluster: ${name.error.issues[0]?.message}`);
    const cluster = name.data;
    const loaded = await deps.store.loadCluster(cluster);
    const { state } = loaded;
    if (Object.keys(state.members).length === 0 && Object.keys(state.events).length === 0)
      return problem(404, `cluster ${cluster} is not known: no relay has reported for it`);
    const now = deps.clock.now();
    const policy = policyFor(deps.settings.QUIESCE_POLICY, cluster);
    const ended = Object.values(state.events)
      .filter((e) => e.endedAt !== null)
      .sort((a, b) => (b.endedAt ?? 0) - (a.endedAt ?? 0))
      .map((e) => eventView(state, e, now, policy));
    return json(200, {
      now: iso(now),
      ...clusterSummary(state, now, policy),
      endedEvents: ended,
      policy,
    });
  };
}

export type EventLookup =
  | { ok: true; cluster: string; key: string }
  | { ok: false; response: HttpResponseInit };

/** Validates {eventId} and ?cluster / body cluster, and finds which cluster holds the event. */
export async function findEvent(
  deps: HandlerDeps,
  rawEventId: string | undefined,
  rawCluster: string | null | undefined,
): Promise<EventLookup> {
  const id = EventIdText.safeParse(rawEventId ?? "");
  if (!id.success)
    return { ok: false, response: problem(400, `invalid eventId: ${id.error.issues[0]?.message}`) };
  const key = eventKey(id.data);
  if (rawCluster !== null && rawCluster !== undefined) {
    const c = ClusterName.safeParse(rawCluster);
    if (!c.success)
      return {
        ok: false,
        response: problem(400, `invalid cluster: ${c.error.issues[0]?.message}`),
      };
    if (!(await deps.store.hasEvent(c.data, key)))
      return {
        ok: false,
        response: problem(404, `event ${id.data} is not known in cluster ${c.data}`),
      };
    return { ok: true, cluster: c.data, key };
  }
  const clusters = await deps.store.findEventClusters(key);
  if (clusters.length === 0)
    return { ok: false, response: problem(404, `event ${id.data} is not known in any cluster`) };
  if (clusters.length > 1)
    return {
      ok: false,
      response: problem(
        409,
        `event ${id.data} is known in clusters ${clusters.join(", ")}: add ?cluster=NAME`,
      ),
    };
  return { ok: true, cluster: clusters[0] as string, key };
}

/** GET /api/events/{eventId}?cluster=NAME: state, timeline, and what it waits for on which VMs. */
export function eventHandler(deps: HandlerDeps) {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const auth = await authenticate(deps, request.headers.get("authorization"), "reader", context);
    if (!auth.ok) return denied(auth);
    const found = await findEvent(deps, request.params.eventId, request.query.get("cluster"));
    if (!found.ok) return found.response;
    const detail = await eventDetail(deps, found.cluster, found.key);
    if (!detail) return problem(404, `event ${request.params.eventId} is no longer known`);
    return json(200, detail);
  };
}

export async function eventDetail(deps: HandlerDeps, cluster: string, key: string) {
  const [loaded, history] = await Promise.all([
    deps.store.loadCluster(cluster, [key]),
    deps.store.readHistory(cluster, key),
  ]);
  const now = deps.clock.now();
  const policy = policyFor(deps.settings.QUIESCE_POLICY, cluster);
  const event = loaded.state.events[key];
  if (!event) return null;
  return {
    now: iso(now),
    ...eventView(loaded.state, event, now, policy),
    readiness: readinessView(loaded.state, key),
    timeline: historyView(history),
  };
}
