import { TableClient } from "@azure/data-tables";
import { encodeKey, eventPartition } from "@quiesce/functions";
import { eventKey } from "@quiesce/protocol/imds";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  freezeEvent,
  makeReport,
  otherInstance,
  postReport,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

/**
 * Heartbeats during an event are decided on this instance's copies of the other VMs' rows
 * (functions/src/store/reportReadCache.ts): two reads per report instead of 6.6. A decision on
 * copies stands only when it changes nothing; one that would write is made again on fresh rows.
 */

const azurite = useAzurite();

const approves = (body: { directives: Array<{ kind: string; eventIds?: string[] }> }) =>
  body.directives.filter((d) => d.kind === "approve").flatMap((d) => d.eventIds ?? []);

async function ops(c: TestCoordinator, body: unknown, key = c.relayKey) {
  const before = c.deps.store.stats();
  const res = await postReport(c, body, key);
  expect(res.status).toBe(200);
  const after = c.deps.store.stats();
  return {
    res,
    reads: after.reads - before.reads,
    queries: after.queries - before.queries,
    writes: after.writes - before.writes,
  };
}

/** Two instances of one deployment: same tables, same clock, same keys. */
async function twoInstances() {
  const a = await testCoordinator(azurite().connectionString);
  return { a, b: await otherInstance(a), key: a.relayKey };
}

describe("a heartbeat during an event", () => {
  it("reads its own member and the event's row, and nothing else, once the instance holds copies: for every VM of the group", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    const group = ["web-0", "web-1", "web-2", "web-3"];
    for (const vm of group) await postReport(c, makeReport(vm, { incarnation: 1, events: [ev] }));
    await postReport(
      c,
      makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    c.clock.advance(2_000);
    for (const vm of group) {
      const drained = vm === "web-0" ? [ev.EventId] : [];
      const hb = await ops(c, makeReport(vm, { incarnation: 1, events: [ev], drained }));
      expect({ vm, reads: hb.reads, queries: hb.queries, writes: hb.writes }).toEqual({
        vm,
        reads: 2,
        queries: 0,
        writes: 0,
      });
    }
  });

  it("on another instance reads the rows once, then answers from its copies; past the member copies' 5 s it reads the members again", async () => {
    const { a, b, key } = await twoInstances();
    const ev = freezeEvent(["web-0", "web-1"]);
    for (const vm of ["web-0", "web-1", "web-2"])
      await postReport(a, makeReport(vm, { incarnation: 1, events: [ev] }));
    const report = makeReport("web-2", { incarnation: 1, events: [ev] });
    const first = await ops(b, report, key);
    // web-2's member, the event, three readiness rows (both named VMs' and web-2's), two members.
    expect(first.reads).toBe(7);
    expect((await ops(b, report, key)).reads).toBe(2);
    b.clock.advance(5_001);
    expect((await ops(b, report, key)).reads).toBe(4); // the two named VMs' members again
  });

  it("sees another instance's change at once: the approver elected there is told to approve here", async () => {
    const { a, b, key } = await twoInstances();
    const ev = freezeEvent(["web-0", "web-1"]);
    await postReport(
      a,
      makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    await postReport(a, makeReport("web-1", { incarnation: 1, events: [ev] }));
    const heartbeat = makeReport("web-1", { incarnation: 1, events: [ev] });
    expect(approves((await ops(a, heartbeat)).res.body)).toEqual([]);
    expect((await ops(a, heartbeat)).reads).toBe(2); // a holds copies now
    // web-1 finishes draining through the other instance, which elects it.
    const elected = await postReport(
      b,
      makeReport("web-1", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
      key,
    );
    expect(approves(elected.body)).toEqual([ev.EventId]);
    // Its next report lands on the first instance, whose copies predate the election.
    const again = await ops(
      a,
      makeReport("web-1", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    expect(approves(again.res.body)).toEqual([ev.EventId]);
  });

  it("that would change anything is decided on fresh rows: a copy saying a VM drained never elects an approver once its row says otherwise", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    await postReport(
      c,
      makeReport("web-0", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    await postReport(c, makeReport("web-1", { incarnation: 1, events: [ev] }));
    const hb = await ops(c, makeReport("web-1", { incarnation: 1, events: [ev] }));
    expect(hb.reads).toBe(2); // web-0's drained row is one of the instance's copies
    // web-0's row changes behind the event row's ETag, as when an attempt failed between its
    // readiness write and its event write: here it is gone (web-0 no longer confirmed drained).
    const readiness = TableClient.fromConnectionString(c.connectionString, `${c.prefix}Readiness`, {
      allowInsecureConnection: true,
    });
    await readiness.deleteEntity(eventPartition("web", eventKey(ev.EventId)), encodeKey("web-0"));
    // web-1 drains: on the copies both VMs are drained and web-1 would be elected; the decision
    // changes rows, so it is made again on fresh ones, where web-0 has not drained.
    const last = await ops(
      c,
      makeReport("web-1", { incarnation: 1, events: [ev], drained: [ev.EventId] }),
    );
    expect(approves(last.res.body)).toEqual([]);
    const stored = (await c.deps.store.loadCluster("web")).state;
    expect(stored.events[eventKey(ev.EventId)]?.lease).toBeNull();
    expect(Object.keys(stored.readiness[eventKey(ev.EventId)] ?? {})).toEqual(["web-1"]);
  });
});
