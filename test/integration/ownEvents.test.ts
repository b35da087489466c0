import { useAzurite } from "@quiesce/testkit/azurite";
import {
  freezeEvent,
  makeReport,
  postReport,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

/**
 * A report reads its own events by point reads, and the cluster's events partition only when it
 * may elect an approver (the budget of events in flight): the partition holds every event of the
 * cluster, ended ones for two weeks, and was read by every report (bench (h)).
 */

const azurite = useAzurite();

const approves = (body: { directives: Array<{ kind: string; eventIds?: string[] }> }) =>
  body.directives.filter((d) => d.kind === "approve").flatMap((d) => d.eventIds ?? []);

async function ops(c: TestCoordinator, body: unknown) {
  const before = c.deps.store.stats();
  const res = await postReport(c, body);
  expect(res.status).toBe(200);
  const after = c.deps.store.stats();
  return { res, reads: after.reads - before.reads, queries: after.queries - before.queries };
}

describe("a report reads its own events", () => {
  it("and not the cluster's others, ended ones included, while none of its events can be elected", async () => {
    const c = await testCoordinator(azurite().connectionString);
    // Ten events that ended (seen, then gone from the document while Scheduled: cancelled).
    for (let k = 0; k < 10; k++) {
      const gone = freezeEvent(["old-0"]);
      await postReport(c, makeReport("old-0", { incarnation: 2 * k + 1, events: [gone] }));
      await postReport(c, makeReport("old-0", { incarnation: 2 * k + 2, events: [] }));
    }
    const ev = freezeEvent(["web-0", "web-1"]);
    await postReport(c, makeReport("web-0", { incarnation: 1, events: [ev] }));
    await postReport(c, makeReport("web-1", { incarnation: 1, events: [ev] }));
    c.clock.advance(5_000);
    const steady = await ops(c, makeReport("web-0", { incarnation: 1, events: [ev] }));
    expect(steady.queries).toBe(0); // no query of the events partition (nor of readiness)
    expect(steady.reads).toBeLessThanOrEqual(5); // member, event, 2 readiness rows, web-1's member
  });

  it("yet never elects past the cluster's budget: an event ready while another is in flight waits, and is handed the budget when it frees", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const a = freezeEvent(["a-0"]);
    const b = freezeEvent(["b-0"]);
    // a-0 drains and is elected: event A holds the budget (maxEventsInFlight 1 by default).
    const first = await postReport(
      c,
      makeReport("a-0", { incarnation: 1, events: [a], drained: [a.EventId] }),
    );
    expect(approves(first.body)).toEqual([a.EventId]);
    // b-0 (another group: it does not see A) drains B. Its report reads only B at first; B is
    // ready, so the decision is taken again with every event of the cluster: A is in flight.
    const { res, queries } = await ops(
      c,
      makeReport("b-0", { incarnation: 1, events: [b], drained: [b.EventId] }),
    );
    expect(approves(res.body)).toEqual([]);
    // B's first sight: its readiness partition (rows a failed attempt may have left), then the
    // events partition, read because B is ready.
    expect(queries).toBe(2);
    expect(res.body.nextReportInSeconds).toBe(1); // asked to report every second for the budget
    // A ends (it left a-0's document while still Scheduled: cancelled): the budget is free.
    await postReport(c, makeReport("a-0", { incarnation: 2, events: [] }));
    const next = await postReport(
      c,
      makeReport("b-0", { incarnation: 1, events: [b], drained: [b.EventId] }),
    );
    expect(approves(next.body)).toEqual([b.EventId]);
  });
});
