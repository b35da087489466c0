import { TableClient } from "@azure/data-tables";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import {
  ClusterPage,
  EventDetail,
  type EventView,
  STATUS_LIMITS,
  StatusPage,
} from "@quiesce/protocol/status";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { beforeAll, describe, expect, it } from "vitest";

const azurite = useAzurite();

const eventId = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, "0")}`;

/**
 * One coordinator shared by the read-only tests: cluster "web" gets 24 events in three reports
 * a second apart (oldest first: 1-8, 9-16, 17-24), then a fourth report without events 1-5,
 * which Azure thereby cancelled (ended); web-1 drained event 6 (Draining, the rest Observed);
 * cluster "db" gets 3 events. Members carry the
 * identities of a scale set's placement group, a zone, and none.
 */
async function seeded(): Promise<{ c: TestCoordinator; active: string[]; ended: string[] }> {
  const c = await testCoordinator(azurite().connectionString);
  const web = Array.from({ length: 24 }, (_, i) =>
    freezeEvent(["web-0", "web-1"], { EventId: eventId(i + 1) }),
  );
  for (let inc = 1; inc <= 3; inc++) {
    await postReport(c, makeReport("web-0", { incarnation: inc, events: web.slice(0, inc * 8) }));
    c.clock.advance(1_000);
  }
  const ended = web.slice(0, 5);
  await postReport(c, makeReport("web-0", { incarnation: 4, events: web.slice(5) }));
  const scaleSetVm = (r: RelayReport): RelayReport => ({
    ...r,
    vm: { ...r.vm, vmScaleSetName: "vmss-api", placementGroupId: "pg-0" },
  });
  await postReport(
    c,
    scaleSetVm(
      makeReport("web-1", { incarnation: 1, events: web.slice(5), drained: [eventId(6)] }),
    ),
  );
  await postReport(c, scaleSetVm(makeReport("web-2")));
  const zonal = makeReport("web-3");
  await postReport(c, { ...zonal, vm: { ...zonal.vm, zone: "2" } });
  const db = [101, 102, 103].map((n) => freezeEvent(["db-0"], { EventId: eventId(n) }));
  await postReport(c, makeReport("db-0", { cluster: "db", incarnation: 1, events: db }));
  return {
    c,
    // Active oldest first: 6-8 at t0, 9-16 at t0+1 s, 17-24 at t0+2 s (key order within a second).
    active: web.slice(5).map((e) => e.EventId),
    // Ended newest first: all five ended at once, so in key order.
    ended: ended.map((e) => e.EventId),
  };
}

const get = async (c: TestCoordinator, path: string) => {
  const res = await call(c.handlers.status, request("GET", path, { key: c.operatorKey }));
  return { ...res, bytes: Buffer.byteLength(JSON.stringify(res.body ?? null)) };
};

/** Every page of a status query, following continuations; fails on a loop. */
async function walk(c: TestCoordinator, query: string, limit: number) {
  const pages: StatusPage[] = [];
  let token: string | null = null;
  do {
    const q = `status?${query}${query ? "&" : ""}limit=${limit}${token ? `&continuation=${token}` : ""}`;
    const res = await get(c, q);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const page = StatusPage.parse(res.body);
    expect(page.events.length).toBeLessThanOrEqual(limit);
    pages.push(page);
    token = page.continuation;
    expect(pages.length).toBeLessThan(100);
  } while (token !== null);
  return { pages, ids: pages.flatMap((p) => p.events.map((e: EventView) => e.eventId)) };
}

describe("status API paging and filters", () => {
  let c: TestCoordinator;
  let active: string[];
  let ended: string[];
  beforeAll(async () => {
    ({ c, active, ended } = await seeded());
  });

  it("pages walk every active event exactly once, oldest first, and end with a null continuation", async () => {
    const { pages, ids } = await walk(c, "cluster=web", 7);
    expect(ids).toEqual(active);
    expect(pages.map((p) => p.events.length)).toEqual([7, 7, 5]);
    expect(pages.at(-1)?.continuation).toBeNull();
    expect(pages[0]?.events[0]).toMatchObject({ phase: "Draining", cluster: "web" });
  });

  it("state=all lists the active events then the ended ones newest first; state=ended only those", async () => {
    const all = await walk(c, "cluster=web&state=all", 4);
    expect(all.ids).toEqual([...active, ...ended]);
    const onlyEnded = await walk(c, "cluster=web&state=ended", 2);
    expect(onlyEnded.ids).toEqual(ended);
    const page = onlyEnded.pages[0] as StatusPage;
    expect(page.events.every((e) => e.phase === "Cancelled" && e.endedAt !== null)).toBe(true);
  });

  it("without a cluster filter pages across clusters; ?cluster narrows events and summaries", async () => {
    const everywhere = await walk(c, "", 10);
    expect(new Set(everywhere.ids).size).toBe(everywhere.ids.length);
    expect(everywhere.ids.sort()).toEqual(
      [...active, eventId(101), eventId(102), eventId(103)].sort(),
    );
    const db = await get(c, "status?cluster=db");
    const page = StatusPage.parse(db.body);
    expect(page.clusters.map((x) => x.cluster)).toEqual(["db"]);
    expect(page.events.map((e) => e.eventId)).toEqual([eventId(101), eventId(102), eventId(103)]);
    const unknown = StatusPage.parse((await get(c, "status?cluster=nobody")).body);
    expect(unknown).toMatchObject({ clusters: [], events: [], continuation: null });
  });

  it("?phase keeps only events in those phases", async () => {
    const cancelled = await walk(c, "state=all&phase=Cancelled", 100);
    expect(cancelled.ids).toEqual(ended);
    const draining = await walk(c, "cluster=web&phase=Draining", 100);
    expect(draining.ids).toEqual([eventId(6)]);
    const observedOrReady = await walk(c, "cluster=web&phase=Observed,Ready", 100);
    expect(observedOrReady.ids).toEqual(active.slice(1));
    const none = await walk(c, "phase=Completed", 100);
    expect(none.ids).toEqual([]);
  });

  it("summaries count members, liveness and active events per group the identity tells", async () => {
    const page = StatusPage.parse((await get(c, "status")).body);
    const web = page.clusters.find((x) => x.cluster === "web");
    expect(web).toEqual({
      cluster: "web",
      memberCount: 4,
      liveMembers: 4,
      activeEventCount: active.length,
      groups: [
        { kind: "placementGroup", name: "pg-0", memberCount: 2, liveMembers: 2 },
        { kind: "ungrouped", name: "", memberCount: 1, liveMembers: 1 },
        { kind: "zone", name: "2", memberCount: 1, liveMembers: 1 },
      ],
    });
  });

  it("the cluster page pages members exactly once and shows the oldest active and latest ended events", async () => {
    const seen: string[] = [];
    let token: string | null = null;
    let last: ClusterPage | undefined;
    do {
      const q: string = `clusters/web?limit=3${token ? `&continuation=${token}` : ""}`;
      const res = await call(
        c.handlers.cluster,
        request("GET", q, { key: c.operatorKey, params: { cluster: "web" } }),
      );
      expect(res.status).toBe(200);
      last = ClusterPage.parse(res.body);
      expect(last.members.length).toBeLessThanOrEqual(3);
      seen.push(...last.members.map((m) => m.vm));
      token = last.continuation;
    } while (token !== null);
    expect(seen).toEqual(["web-0", "web-1", "web-2", "web-3"]);
    expect(last?.activeEvents.map((e) => e.eventId)).toEqual(active);
    expect(last?.recentEndedEvents.map((e) => e.eventId)).toEqual(ended);
    expect(last?.members.find((m) => m.vm === "web-3")?.zone).toBe("2");
  });

  it("bad parameters get a 400 naming the parameter and write nothing", async () => {
    const before = await dumpTables(c.connectionString, c.prefix);
    const bad: Array<[string, RegExp]> = [
      ["status?limit=0", /^invalid limit/],
      ["status?limit=501", /^invalid limit: .*500/],
      ["status?limit=ten", /^invalid limit/],
      ["status?limit=", /^invalid limit/],
      ["status?state=open", /^invalid state/],
      ["status?phase=Draining,Sleeping", /^invalid phase/],
      ["status?phase=", /^invalid phase/],
      ["status?cluster=web'%20or%20PartitionKey%20ne%20'", /^invalid cluster/],
      ["status?continuation=not*a*token", /^invalid continuation/],
      [
        `status?continuation=${Buffer.from('{"s":2}').toString("base64url")}`,
        /^invalid continuation/,
      ],
    ];
    for (const [path, error] of bad) {
      const res = await get(c, path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.error).toMatch(error);
    }
    for (const q of ["limit=2001", "continuation=%7B%7D", "limit=-1"]) {
      const res = await call(
        c.handlers.cluster,
        request("GET", `clusters/web?${q}`, { key: c.operatorKey, params: { cluster: "web" } }),
      );
      expect([q, res.status]).toEqual([q, 400]);
    }
    expect(await dumpTables(c.connectionString, c.prefix)).toEqual(before);
  });
});

describe("status API answers stay bounded", () => {
  it("events naming 1,000 VMs each are cut into pages under the byte budget, each walked once", async () => {
    const c = await testCoordinator(azurite().connectionString);
    // Six events of 1,000 long VM names: about 0.6 MB of view each, 3.6 MB in all.
    const names = (n: number) =>
      Array.from(
        { length: 1000 },
        (_, i) => `vm-${n}-${String(i).padStart(4, "0")}-${"x".repeat(180)}`,
      );
    const big: ScheduledEvent[] = [1, 2, 3, 4, 5, 6].map((n) =>
      freezeEvent(names(n), { EventId: eventId(n) }),
    );
    for (const [i, ev] of big.entries()) {
      const res = await postReport(
        c,
        makeReport(`reporter-${i}`, { incarnation: 1, events: [ev] }),
      );
      expect(res.status).toBe(200);
    }
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const res = await get(c, `status?limit=500${token ? `&continuation=${token}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.bytes).toBeLessThan(STATUS_LIMITS.pageBytes + 64 * 1024);
      const page = StatusPage.parse(res.body);
      seen.push(...page.events.map((e) => e.eventId));
      token = page.continuation;
      pages++;
    } while (token !== null && pages < 10);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(big.map((e) => e.EventId));
    const cluster = await call(
      c.handlers.cluster,
      request("GET", "clusters/web", { key: c.operatorKey, params: { cluster: "web" } }),
    );
    expect(Buffer.byteLength(JSON.stringify(cluster.body))).toBeLessThan(
      2 * STATUS_LIMITS.pageBytes + 64 * 1024,
    );
    expect(ClusterPage.parse(cluster.body).activeEventCount).toBe(6);
  });

  it("an event's timeline keeps the newest 1,000 entries and says it was cut", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0"]);
    await postReport(c, makeReport("web-0", { incarnation: 1, events: [ev] }));
    // 1,010 older history rows written straight into the table, as years of operator notes would be.
    const history = TableClient.fromConnectionString(c.connectionString, `${c.prefix}History`, {
      allowInsecureConnection: true,
    });
    const pk = `web|${ev.EventId.toLowerCase()}`;
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    for (let b = 0; b < 1010; b += 100) {
      const rows = Array.from({ length: Math.min(100, 1010 - b) }, (_, i) => {
        const at = t0 + (b + i) * 1000;
        return {
          partitionKey: pk,
          rowKey: `${String(at).padStart(15, "0")}-${String(b + i).padStart(6, "0")}-seeded`,
          at,
          eventKey: ev.EventId.toLowerCase(),
          kind: "operator",
          action: "hold",
          by: "seed",
          reason: `note ${b + i}`,
        };
      });
      await history.submitTransaction(rows.map((r) => ["create", r]));
    }
    const res = await call(
      c.handlers.event,
      request("GET", `events/${ev.EventId}`, {
        key: c.operatorKey,
        params: { eventId: ev.EventId },
      }),
    );
    expect(res.status).toBe(200);
    const detail = EventDetail.parse(res.body);
    expect(detail.timelineTruncated).toBe(true);
    expect(detail.timeline).toHaveLength(STATUS_LIMITS.timeline);
    // The oldest notes were cut; the event's own first transition (newest here) is kept, last.
    expect(detail.timeline[0]?.reason).toBe("note 11");
    expect(detail.timeline.at(-1)).toMatchObject({ kind: "transition" });
  });
});
