import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpCounts } from "../../functions/src/store";
import { type AzuriteHandle, startTestAzurite } from "../support/azurite";
import {
  call,
  freezeEvent,
  makeReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "./harness";

/**
 * The store's budget of table operations per report, measured through the real handler
 * against Azurite. The numbers are printed for the docs and the issue note.
 */

let azurite: AzuriteHandle;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(async () => {
  await azurite?.stop();
});

async function measure(c: TestCoordinator, body: unknown): Promise<Omit<OpCounts, "conflicts">> {
  const before = c.deps.store.stats();
  const res = await call(
    c.handlers.report,
    request("POST", "relay/report", { key: c.relayKey, body }),
  );
  expect(res.status).toBe(200);
  const after = c.deps.store.stats();
  return {
    reads: after.reads - before.reads,
    queries: after.queries - before.queries,
    writes: after.writes - before.writes,
  };
}

describe("table operations per report", () => {
  it("meet the budget: idle heartbeat 1 read and 0 writes (1 when lastSeenAt is due); event-time reports a handful", async () => {
    const c = await testCoordinator(azurite.connectionString);
    const rows: [string, Omit<OpCounts, "conflicts">][] = [];
    const ev = freezeEvent(["web-0", "web-1"]);

    rows.push(["first report of a relay (registers it)", await measure(c, makeReport("web-0"))]);
    await measure(c, makeReport("web-1"));
    c.clock.advance(5_000);
    const idle = await measure(c, makeReport("web-0"));
    rows.push(["idle heartbeat, member unchanged", idle]);
    expect(idle).toEqual({ reads: 1, queries: 0, writes: 0 });

    c.clock.advance(31_000); // past the liveness granularity (a third of the 90 s timeout)
    const refresh = await measure(c, makeReport("web-0"));
    rows.push(["idle heartbeat, lastSeenAt due", refresh]);
    expect(refresh).toEqual({ reads: 1, queries: 0, writes: 1 });
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
});
