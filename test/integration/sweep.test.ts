import { useAzurite } from "@quiesce/testkit/azurite";
import {
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();

const report = postReport;

const eventRow = async (c: TestCoordinator) => {
  const rows = (await dumpTables(c.connectionString, c.prefix)).Events as { d0: string }[];
  return rows.map((r) => JSON.parse(r.d0));
};

describe("sweep", () => {
  it("expires an approval lease nobody confirmed, so another relay is elected", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    await report(c, makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }));
    const elected = await report(
      c,
      makeReport("web-1", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    expect(elected.body.directives).toEqual([expect.objectContaining({ kind: "approve" })]);

    c.clock.advance(31_000); // past the 30 s lease, no approval result from web-1
    const summary = await c.handlers.sweep();
    expect(summary).toMatchObject({ clusters: 1, changed: 1, skipped: [] });
    const [event] = await eventRow(c);
    expect(event.lease).toBeNull();
    expect(event.failedApprovers).toEqual(["web-1"]);

    const next = await report(
      c,
      makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    expect(next.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [ev.EventId] }),
    ]);
  });

  it("does nothing (and writes nothing) when no event is active, once the member migration is done", async () => {
    const c = await testCoordinator(azurite().connectionString);
    await report(c, makeReport("web-0"));
    // The first round finds no member row of an earlier release and writes the migration's marker.
    expect(await c.handlers.sweep()).toMatchObject({ membersMoved: 0 });
    const before = c.deps.store.stats();
    const summary = await c.handlers.sweep();
    expect(summary).toMatchObject({ clusters: 0, changed: 0 });
    expect(c.deps.store.stats().writes).toBe(before.writes);
  });

  it("forgets an ended event and its readiness rows after the retention, and purges old history", async () => {
    const c = await testCoordinator(azurite().connectionString, {
      settings: { QUIESCE_EVENT_RETENTION_DAYS: "1", QUIESCE_HISTORY_RETENTION_DAYS: "2" },
    });
    const ev = freezeEvent(["web-0"]);
    await report(c, makeReport("web-0", { incarnation: 1, events: [ev] }));
    await report(c, makeReport("web-0", { incarnation: 2, events: [] })); // left while Scheduled: Cancelled
    const [cancelled] = await eventRow(c);
    expect(cancelled.phase).toBe("Cancelled");

    c.clock.advance(86_400_000 + 1000);
    const first = await c.handlers.sweep();
    expect(first.forgotten).toBe(1);
    let tables = await dumpTables(c.connectionString, c.prefix);
    expect(tables.Events).toHaveLength(0);
    expect(tables.Readiness).toHaveLength(0);
    expect(tables.History?.length).toBeGreaterThan(0); // history outlives the event

    c.clock.advance(2 * 86_400_000);
    const second = await c.handlers.sweep();
    expect(second.historyPurged).toBeGreaterThan(0);
    tables = await dumpTables(c.connectionString, c.prefix);
    expect(tables.History).toHaveLength(0);
    expect(tables.Members).toHaveLength(1);
  });
});
