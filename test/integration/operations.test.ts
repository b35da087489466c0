import type { OpCounts } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  freezeEvent,
  makeReport,
  otherInstance,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

/**
 * The store's budget of table operations per report, measured through the real handler
 * against Azurite. The numbers are printed for the docs and the issue note.
 */

const azurite = useAzurite();

async function measure(
  c: TestCoordinator,
  body: unknown,
  key = c.relayKey,
): Promise<Omit<OpCounts, "conflicts">> {
  const before = c.deps.store.stats();
  const res = await call(c.handlers.report, request("POST", "relay/report", { key, body }));
  expect(res.status).toBe(200);
  const after = c.deps.store.stats();
  return {
    reads: after.reads - before.reads,
    queries: after.queries - before.queries,
    writes: after.writes - before.writes,
  };
}

describe("table operations per report", () => {
  it("cost nothing for two idle heartbeats in three at the default 5-minute heartbeat, on the instance that serves the relay", async () => {
    const c = await testCoordinator(azurite().connectionString);
    await measure(c, makeReport("web-0"));
    const perHeartbeat: number[] = [];
    for (let i = 0; i < 9; i++) {
      c.clock.advance(300_000 + 100);
      const o = await measure(c, makeReport("web-0"));
      perHeartbeat.push(o.reads + o.queries + o.writes);
    }
    // lastSeenAt is rewritten (one write, no read) on every third heartbeat; the others are free.
    expect(perHeartbeat).toEqual([0, 0, 1, 0, 0, 1, 0, 0, 1]);
  });

  it("meet the budget: idle heartbeat at most 1 read and 0 writes (1 when lastSeenAt is due); event-time reports a handful", async () => {
    const c = await testCoordinator(azurite().connectionString);
    // A second instance on the same tables: it has not seen the member, so it reads it.
    const other = await otherInstance(c);
    const rows: [string, Omit<OpCounts, "conflicts">][] = [];
    const ev = freezeEvent(["web-0", "web-1"]);

    rows.push(["first report of a relay (registers it)", await measure(c, makeReport("web-0"))]);
    await measure(c, makeReport("web-1"));
    c.clock.advance(5_000);
    const idle = await measure(c, makeReport("web-0"));
    rows.push(["idle heartbeat, member unchanged, same instance", idle]);
    expect(idle).toEqual({ reads: 0, queries: 0, writes: 0 });
    const idleElsewhere = await measure(other, makeReport("web-0"), c.relayKey);
    rows.push(["idle heartbeat, member unchanged, other instance", idleElsewhere]);
    expect(idleElsewhere).toEqual({ reads: 1, queries: 0, writes: 0 });

    // Past an idle relay's liveness granularity (a third of its 32-min idle timeout).
    c.clock.advance(641_000);
    const refresh = await measure(c, makeReport("web-0"));
    rows.push(["idle heartbeat, lastSeenAt due", refresh]);
    expect(refresh).toEqual({ reads: 0, queries: 0, writes: 1 });
    await measure(c, makeReport("web-1"));

    const first = await measure(c, makeReport("web-0", { incarnation: 2, events: [ev] }));
    rows.push(["event first seen (2-VM event)", first]);
    const second = await measure(c, makeReport("web-1", { incarnation: 2, events: [ev] }));
    rows.push(["event seen by the second VM", second]);
    c.clock.advance(5_000);
    const steady = await measure(c, makeReport("web-0", { incarnation: 2, events: [ev] }));
    rows.push(["heartbeat during the event, nothing changed", steady]);
    const drain0 = await measure(
      c,
      makeReport("web-0", { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    rows.push(["drain finished (not the last)", drain0]);
    const drain1 = await measure(
      c,
      makeReport("web-1", { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    rows.push(["last drain finished, approver elected", drain1]);

    expect(steady.writes).toBe(0);
    expect(steady.reads + steady.queries).toBeLessThanOrEqual(5);
    for (const [, ops] of rows)
      expect(ops.reads + ops.queries + ops.writes).toBeLessThanOrEqual(10);

    console.info(
      [
        "table operations per report (npx vitest run test/integration/operations.test.ts):",
        ...rows.map(
          ([what, o]) =>
            `  ${what.padEnd(48)} reads ${o.reads}  queries ${o.queries}  writes ${o.writes}`,
        ),
      ].join("\n"),
    );
  });

  it("notices an event that left while another instance applied it, though this instance remembered the member idle", async () => {
    const a = await testCoordinator(azurite().connectionString);
    const b = await otherInstance(a);
    const ev = freezeEvent(["web-0", "web-1"]);
    await measure(a, makeReport("web-0")); // a remembers web-0 idle at incarnation 1
    a.clock.advance(1_000);
    await measure(b, makeReport("web-0", { incarnation: 2, events: [ev] }), a.relayKey);
    a.clock.advance(1_000);
    // Back on a: the event has left (incarnation 3, no events). a's idle copy is stale; the write
    // it wants fails its ETag, and the re-read finds the event to mark as gone.
    const res = await call(
      a.handlers.report,
      request("POST", "relay/report", {
        key: a.relayKey,
        body: makeReport("web-0", { incarnation: 3 }),
      }),
    );
    expect(res.status).toBe(200);
    const detail = await call(
      a.handlers.event,
      request("GET", `events/${ev.EventId}?cluster=web`, {
        key: a.operatorKey,
        params: { eventId: ev.EventId },
      }),
    );
    expect(detail.status).toBe(200);
    expect(detail.body.phase).toBe("Cancelled");
  });
});
