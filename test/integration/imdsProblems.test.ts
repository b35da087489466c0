import { ClusterPage } from "@quiesce/protocol/status";
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
 * Protocol 1.1 through the real report and status handlers against Azurite: IMDS problems a relay
 * reports are shown on its member and block approval of what they might hide; the answer says
 * which hook states storage already held and the active interval.
 */

const azurite = useAzurite();

const unreadable = {
  kind: "event",
  field: "Events[1].EventId",
  detail: "EventId unreadable: 7",
} as const;

describe("IMDS problems (protocol 1.1)", () => {
  it("shows a relay's IMDS problems on its member and as the blocker of events naming its VM, until its document reads clean", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    await postReport(c, makeReport("web-0", { events: [ev], drained: [ev.EventId] }));
    const odd = {
      ...makeReport("web-1", { events: [ev], drained: [ev.EventId] }),
      protocol: "1.1",
      imdsProblems: [unreadable],
    };
    const held = await postReport(c, odd);
    expect(held.status).toBe(200);
    expect(held.body.directives).toEqual([]);

    const res = await call(
      c.handlers.cluster,
      request("GET", "clusters/web", { key: c.operatorKey, params: { cluster: "web" } }),
    );
    const web = ClusterPage.parse(res.body);
    expect(web.members.find((m) => m.vm === "web-1")?.imdsProblems).toEqual([unreadable]);
    expect(web.members.find((m) => m.vm === "web-0")?.imdsProblems).toEqual([]);
    expect(web.activeEvents[0]?.blockers).toEqual([
      { vm: "web-1", reason: "imdsProblem", detail: expect.stringMatching(/EventId unreadable/) },
    ]);

    const clean = await postReport(c, makeReport("web-1", { events: [ev], drained: [ev.EventId] }));
    expect(clean.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [ev.EventId] }),
    ]);
  });

  it("answers which hook states storage already held, and the active interval", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    const r = makeReport("web-0", { events: [ev], drained: [ev.EventId] });
    const first = await postReport(c, r);
    expect(first.body).toMatchObject({ hooksStored: [], activeReportSeconds: 5 });
    const second = await postReport(c, r);
    expect(second.body.hooksStored).toEqual([ev.EventId]);
  });

  it("refuses a malformed imdsProblems field with 400 and writes nothing", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const bad = { ...makeReport("web-0"), imdsProblems: [{ kind: "event", detail: 7 }] };
    const res = await postReport(c, bad);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/imdsProblems\.0\.detail/);
    const tables = await dumpTables(c.connectionString, c.prefix);
    expect(Object.values(tables).flat()).toEqual([]);
  });
});
