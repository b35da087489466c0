import { ClusterPage, EventDetail, StatusPage } from "@quiesce/protocol/status";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  request,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();

const report = postReport;

async function clusterWithEvent(settings: Record<string, string> = {}) {
  const c = await testCoordinator(azurite().connectionString, { settings });
  const ev = freezeEvent(["web-0", "web-1"]);
  await report(c, makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }));
  await report(c, makeReport("web-1", { incarnation: 1, events: [ev] }));
  return { c, ev };
}

describe("status API", () => {
  it("GET /api/status summarizes every cluster's members and liveness and lists what each active event waits for", async () => {
    // An idle relay is live for 32 min by default; 90 s here so that db-0's silence shows.
    const { c, ev } = await clusterWithEvent({
      QUIESCE_POLICY: JSON.stringify({ default: { idleLivenessTimeoutSeconds: 90 } }),
    });
    await report(c, makeReport("db-0", { cluster: "db" }));
    c.clock.advance(120_000); // web-0 keeps reporting; web-1 (in the event) and db-0 fall silent
    await report(c, makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }));
    const res = await call(c.handlers.status, request("GET", "status", { key: c.operatorKey }));
    expect(res.status).toBe(200);
    const page = StatusPage.parse(res.body);
    expect(page.clusters).toEqual([
      {
        cluster: "db",
        memberCount: 1,
        liveMembers: 0,
        activeEventCount: 0,
        groups: [{ kind: "ungrouped", name: "", memberCount: 1, liveMembers: 0 }],
      },
      {
        cluster: "web",
        memberCount: 2,
        liveMembers: 1,
        activeEventCount: 1,
        groups: [{ kind: "ungrouped", name: "", memberCount: 2, liveMembers: 1 }],
      },
    ]);
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({ eventId: ev.EventId, phase: "Draining" });
    expect(page.events[0]?.waitingFor).toMatch(/web-1/);
    expect(page.events[0]?.blockers).toEqual([expect.objectContaining({ vm: "web-1" })]);
    expect(page.continuation).toBeNull();
  });

  it("a page's event waiting on the cluster's budget names the event in flight, which is not on the page", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const first = freezeEvent(["web-0"]);
    const second = freezeEvent(["web-1"]);
    const approved = await report(
      c,
      makeReport("web-0", { incarnation: 1, events: [first], drained: [first.EventId] }),
    );
    expect(approved.body.directives).toEqual([expect.objectContaining({ kind: "approve" })]);
    c.clock.advance(1_000);
    await report(
      c,
      makeReport("web-1", { incarnation: 1, events: [second], drained: [second.EventId] }),
    );
    const res = await call(
      c.handlers.status,
      request("GET", "status?phase=Ready", { key: c.operatorKey }),
    );
    const page = StatusPage.parse(res.body);
    expect(page.events.map((e) => e.eventId)).toEqual([second.EventId]);
    expect(page.events[0]?.waitingFor).toMatch(
      new RegExp(`budget of 1 event\\(s\\) in flight, used by ${first.EventId}`),
    );
  });

  it("GET /api/clusters/{cluster} shows one cluster with the policy in force; unknown → 404, bad name → 400", async () => {
    const { c } = await clusterWithEvent();
    const ok = await call(
      c.handlers.cluster,
      request("GET", "clusters/web", { key: c.operatorKey, params: { cluster: "web" } }),
    );
    expect(ok.status).toBe(200);
    const page = ClusterPage.parse(ok.body);
    expect(page.policy.maxEventsInFlight).toBe(1);
    expect(page.members.map((m) => m.vm)).toEqual(["web-0", "web-1"]);
    expect(page).toMatchObject({ memberCount: 2, activeEventCount: 1, continuation: null });
    expect(page.activeEvents).toHaveLength(1);
    expect(page.recentEndedEvents).toEqual([]);
    const missing = await call(
      c.handlers.cluster,
      request("GET", "clusters/nope", { key: c.operatorKey, params: { cluster: "nope" } }),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/nope/);
    const bad = await call(
      c.handlers.cluster,
      request("GET", "clusters/x", {
        key: c.operatorKey,
        params: { cluster: "web' or PartitionKey ne '" },
      }),
    );
    expect(bad.status).toBe(400);
  });

  it("GET /api/events/{eventId} gives state, readiness, timeline and blockers, with or without ?cluster", async () => {
    const { c, ev } = await clusterWithEvent();
    for (const path of [`events/${ev.EventId}`, `events/${ev.EventId.toLowerCase()}?cluster=web`]) {
      const res = await call(
        c.handlers.event,
        request("GET", path, {
          key: c.operatorKey,
          params: { eventId: path.split("/")[1]?.split("?")[0] as string },
        }),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ eventId: ev.EventId, cluster: "web", phase: "Draining" });
      expect(res.body.readiness).toHaveLength(2);
      expect(res.body.timeline.length).toBeGreaterThan(0);
      expect(res.body.timeline[0].at <= res.body.timeline.at(-1).at).toBe(true);
      expect(EventDetail.parse(res.body).timelineTruncated).toBe(false);
      expect(res.body.blockers.map((b: { vm: string }) => b.vm)).toEqual(["web-1"]);
    }
  });

  it("event lookups answer 404 for unknown ids and injection attempts, 400 for bad characters", async () => {
    const { c, ev } = await clusterWithEvent();
    const get = (eventId: string, query = "") =>
      call(
        c.handlers.event,
        request("GET", `events/x${query}`, { key: c.operatorKey, params: { eventId } }),
      );
    expect((await get("no-such-event")).status).toBe(404);
    expect((await get("x' or RowKey ne '")).status).toBe(404);
    expect((await get(`${ev.EventId}`, "?cluster=other")).status).toBe(404);
    expect((await get(`${ev.EventId}`, "?cluster=a'b")).status).toBe(400);
    expect((await get("bad\u0001id")).status).toBe(400);
  });

  it("needs credentials: none → 401, relay key → 403", async () => {
    const { c } = await clusterWithEvent();
    expect((await call(c.handlers.status, request("GET", "status"))).status).toBe(401);
    expect(
      (await call(c.handlers.status, request("GET", "status", { key: c.relayKey }))).status,
    ).toBe(403);
  });
});

describe("operator routes", () => {
  it("hold blocks approval, release lifts it, each audited with who and why", async () => {
    const { c, ev } = await clusterWithEvent();
    const op = (handler: "hold" | "release" | "forceApprove", body: unknown) =>
      call(
        c.handlers[handler],
        request("POST", `events/${ev.EventId}/${handler}`, {
          key: c.operatorKey,
          body,
          params: { eventId: ev.EventId },
        }),
      );
    const held = await op("hold", { reason: "change freeze", ttlMinutes: 30 });
    expect(held.status).toBe(200);
    expect(held.body.hold).toMatchObject({ by: "operator-key", reason: "change freeze" });
    // The last drain now completes readiness, but the hold keeps anyone from approving.
    const drained = await report(
      c,
      makeReport("web-1", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    expect(drained.body.directives).toEqual([]);
    const released = await op("release", { reason: "freeze over" });
    expect(released.status).toBe(200);
    expect(released.body.hold).toBeNull();
    const after = await report(
      c,
      makeReport("web-1", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    expect(after.body.directives).toEqual([expect.objectContaining({ kind: "approve" })]);
    const audit = released.body.timeline.filter((t: { kind: string }) => t.kind === "operator");
    expect(audit).toEqual([
      expect.objectContaining({ action: "hold", by: "operator-key", reason: "change freeze" }),
      expect.objectContaining({ action: "release", by: "operator-key", reason: "freeze over" }),
    ]);
  });

  it("force-approve lets the next relay that sees the event approve it before its drains finish", async () => {
    const { c, ev } = await clusterWithEvent();
    const forced = await call(
      c.handlers.forceApprove,
      request("POST", "x", {
        key: c.operatorKey,
        body: { cluster: "web", reason: "urgent" },
        params: { eventId: ev.EventId },
      }),
    );
    expect(forced.status).toBe(200);
    expect(forced.body.forceApprove).toMatchObject({ reason: "urgent" });
    const res = await report(c, makeReport("web-1", { incarnation: 1, events: [ev] }));
    expect(res.body.directives).toEqual([expect.objectContaining({ kind: "approve" })]);
  });

  it("rejects bad operator requests without writing: no reason, ttl over 24 h, reader-less key, unknown event", async () => {
    const { c, ev } = await clusterWithEvent();
    const before = await dumpTables(c.connectionString, c.prefix);
    const hold = (body: unknown, key = c.operatorKey, eventId = ev.EventId) =>
      call(c.handlers.hold, request("POST", "x", { key, body, params: { eventId } }));
    const noReason = await hold({ ttlMinutes: 5 });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error).toMatch(/reason/);
    const tooLong = await hold({ reason: "r", ttlMinutes: 2000 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatch(/ttlMinutes/);
    expect((await hold({ reason: "r" }, c.relayKey)).status).toBe(403);
    expect((await hold({ reason: "r" }, c.operatorKey, "unknown-event")).status).toBe(404);
    expect(await dumpTables(c.connectionString, c.prefix)).toEqual(before);
  });
});
