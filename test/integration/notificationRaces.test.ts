import { ClusterStore, createHandlers, openTables, zeroCounts } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import { FaultPlan, withFaults } from "@quiesce/testkit/faults";
import {
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { useSinkReceiver } from "@quiesce/testkit/notifications";
import { describe, expect, it } from "vitest";

/**
 * A notification is derived from what a report changed, and a report that loses a race after some
 * of its writes landed is retried from a fresh read that already holds them. What the first
 * attempt made due must survive its retry: the sweep catches up on active events only, so news of
 * an event that ends before the next sweep would otherwise be lost for good.
 */

const azurite = useAzurite();
const SECRET = "r".repeat(40);
const sinks = useSinkReceiver(SECRET);

describe("notifications across a retried report", () => {
  it("sends 'observed' once when the attempt that created the event lost the answer to its event write", async () => {
    const policy = { default: { notify: { on: ["observed"] } } };
    const c = await testCoordinator(azurite().connectionString, {
      clock: sinks.clock,
      settings: sinks.sinkSettings(policy),
    });
    // The event row is written, then its answer is lost as a conflict: the retry reads it back.
    const plan = new FaultPlan(new Map([[0, "conflictAfter"]]));
    const totals = zeroCounts();
    const tables = openTables({ connectionString: c.connectionString }, c.prefix, totals);
    const store = new ClusterStore({ ...tables, Events: withFaults(tables, plan).Events }, totals);
    const handlers = createHandlers({ ...c.deps, store });
    const from = sinks.receiver.received.length;

    const ev = freezeEvent(["web-0", "web-1"]);
    const answer = await postReport({ ...c, handlers }, makeReport("web-0", { events: [ev] }));
    await c.deps.notifier.settled();

    expect(answer.status).toBe(200);
    expect(plan.injected).toEqual([{ write: 0, kind: "conflictAfter", op: "insert" }]);
    expect((await dumpTables(c.connectionString, c.prefix)).Events).toHaveLength(1);
    const hooks = sinks.webhookMessages(from);
    expect(hooks.map((h) => [h.kind, h.eventId])).toEqual([["observed", ev.EventId]]);
    for (const sink of ["teams", "slack"])
      expect(sinks.receiver.received.slice(from).filter((m) => m.sink === sink)).toHaveLength(1);
  });
});
