import { randomBytes } from "node:crypto";
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

/**
 * A relay whose key the coordinator refuses is not invisible: its refused reports are counted by
 * the VM they claim and shown beside that VM's blocker and on GET /api/alerts, through the real
 * report handler. The claim is never trusted: nothing is written, no member is created, nothing
 * is approved, and the credential it presented appears in no answer.
 */

const azurite = useAzurite();

/** A wrong key that would be a leak anywhere it showed up. */
const CANARY = `CANARY-SECRET-${randomBytes(6).toString("hex")}`;

async function setup() {
  const c = await testCoordinator(azurite().connectionString);
  // web-1 registered before the event; web-9 never did.
  await postReport(c, makeReport("web-1"));
  c.clock.advance(1000);
  const ev = freezeEvent(["web-0", "web-1", "web-9"]);
  await postReport(c, makeReport("web-0", { events: [ev], drained: [ev.EventId] }));
  // Past the event's liveness timeout (90 s): web-1's silence since the event now blocks it.
  c.clock.advance(120_000);
  await postReport(c, makeReport("web-0", { events: [ev], drained: [ev.EventId], seq: 2 }));
  const get = (handler: "status" | "cluster" | "event" | "alerts", path: string, params = {}) =>
    call(c.handlers[handler], request("GET", path, { key: c.operatorKey, params }));
  return { c, ev, get };
}

describe("reports refused at authentication, by the VM they claim", () => {
  it("counts a wrong key's reports on the claimed VM's blocker and on /api/alerts, and changes nothing else", async () => {
    const { c, ev, get } = await setup();
    const before = await dumpTables(c.connectionString, c.prefix);

    const refusedAt = c.clock.now();
    for (const vm of ["web-9", "web-9", "web-9", "web-1"]) {
      const r = await postReport(
        c,
        makeReport(vm, { events: [ev], drained: [ev.EventId] }),
        CANARY,
      );
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe("Bearer");
      c.clock.advance(1000);
    }
    // A credential without the relay role is refused too (403), and counted the same way.
    const asOperator = await postReport(c, makeReport("web-1", { events: [ev] }), c.operatorKey);
    expect(asOperator.status).toBe(403);

    // Nothing written: no member for web-9, no drain recorded, no approval.
    expect(await dumpTables(c.connectionString, c.prefix)).toEqual(before);

    const detail = EventDetail.parse(
      (await get("event", `events/${ev.EventId}`, { eventId: ev.EventId })).body,
    );
    expect(detail.phase).toBe("Draining");
    expect(detail.approval.approvedAt).toBeNull();
    const blocker = (vm: string) => detail.blockers.find((b) => b.vm === vm);
    expect(blocker("web-9")).toEqual({
      vm: "web-9",
      reason: "neverRegistered",
      detail: `no relay has ever reported for this VM; 3 report(s) claiming this VM were refused from ${new Date(refusedAt).toISOString()} to ${new Date(refusedAt + 2000).toISOString()}, last 401: invalid key (this coordinator instance's count; the claim is not verified)`,
    });
    expect(blocker("web-1")?.reason).toBe("noLiveRelay");
    expect(blocker("web-1")?.detail).toMatch(
      /; 2 report\(s\) claiming this VM were refused .*, last 403: operator-key is not allowed here/,
    );

    const alerts = (await get("alerts", "alerts")).body;
    expect(alerts.refusedReports).toMatchObject({ tracked: 2, evicted: 0 });
    expect(alerts.refusedReports.claims).toEqual([
      expect.objectContaining({ cluster: "web", vm: "web-1", refused: 2, status: 403 }),
      expect.objectContaining({
        cluster: "web",
        vm: "web-9",
        refused: 3,
        status: 401,
        reason: "invalid key",
        firstAt: new Date(refusedAt).toISOString(),
      }),
    ]);

    // The page's reads show it on the same blocker; web-9 is no member anywhere.
    const status = StatusPage.parse((await get("status", "status")).body);
    expect(status.events[0]?.blockers.find((b) => b.vm === "web-9")?.detail).toContain(
      "3 report(s) claiming this VM were refused",
    );
    const cluster = ClusterPage.parse(
      (await get("cluster", "clusters/web", { cluster: "web" })).body,
    );
    expect(cluster.members.map((m) => m.vm).sort()).toEqual(["web-0", "web-1"]);
    expect(cluster.activeEvents[0]?.blockers.find((b) => b.vm === "web-9")?.detail).toContain(
      "3 report(s) claiming this VM were refused",
    );

    // The credential it presented is in no answer.
    const answers = JSON.stringify([detail, alerts, status, cluster]);
    expect(answers).not.toContain(CANARY);
  });

  it("counts nothing for a report the coordinator accepts, nor for a refused body that claims no VM", async () => {
    const { c, get } = await setup();
    const garbage = await call(
      c.handlers.report,
      request("POST", "relay/report", { key: CANARY, raw: "not json" }),
    );
    expect(garbage.status).toBe(401);
    await postReport(c, makeReport("web-9"));
    const alerts = (await get("alerts", "alerts")).body;
    expect(alerts.refusedReports).toMatchObject({ tracked: 0, evicted: 0, claims: [] });
  });
});
