import { TableClient } from "@azure/data-tables";
import { CountedTable, eventIndexRow } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  AVAILABILITY_SET as AS,
  SUBSCRIPTION as SUB,
  scheduledEventEmitted,
} from "@quiesce/testkit/eventGrid";
import {
  call,
  freezeEvent,
  makeReport,
  otherInstance,
  postReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { firstEventRow, seedStoredEvents } from "@quiesce/testkit/seed";
import { afterEach, describe, expect, it, vi } from "vitest";

/**
 * What one Event Grid delivery costs in table operations, against the events already stored
 * (issue 29: a delivery of 1,000 events took 93 s at 1,000 stored, each event scanning the Events
 * table by RowKey and querying its cluster's whole events partition). Counted through the real
 * handler on Azurite: operations (the store's counters) and the rows every query returned.
 */
const azurite = useAzurite();
const KEY = "event-grid-key-0123456789";
const STRAY = `/subscriptions/${SUB}/resourceGroups/other/providers/Microsoft.Compute/virtualMachines/lonely`;

function eventGridEvent(eventId: string, status: string, resources: string[], scope = AS) {
  return scheduledEventEmitted({ eventId, status, resources, scope });
}

const uuid = (i: number) => `5d4b8a43-0d39-4c2b-a0a4-${String(i).padStart(12, "0")}`;

async function coordinator(): Promise<TestCoordinator> {
  return testCoordinator(azurite().connectionString, {
    settings: {
      QUIESCE_CONTROL_PLANE: "true",
      QUIESCE_CONTROL_PLANE_EVENTS: "true",
      QUIESCE_EVENT_GRID_KEY: KEY,
      QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "0",
      QUIESCE_POLICY: JSON.stringify({
        clusters: { appliances: { azureResources: [AS] }, web: {} },
      }),
    },
  });
}

const post = (c: TestCoordinator, body: unknown) =>
  call(c.handlers.eventGrid, request("POST", `maintenance/eventgrid?code=${KEY}`, { body }));

/** Rows returned by every query while `fn` runs (a scan's cost is its rows, not its one call). */
async function costOf(c: TestCoordinator, fn: () => Promise<unknown>) {
  let rows = 0;
  let scans = 0;
  const query = CountedTable.prototype.query;
  const spy = vi.spyOn(CountedTable.prototype, "query").mockImplementation(async function (
    this: CountedTable,
    ...args: Parameters<CountedTable["query"]>
  ) {
    const out = await query.apply(this, args);
    rows += out.length;
    // No PartitionKey in the filter: the service reads every row of the table to answer it.
    if (!/PartitionKey (eq|ge)/.test(args[0] ?? "")) scans++;
    return out;
  });
  try {
    const before = c.deps.store.stats();
    await fn();
    await c.deps.controlPlane.settle(); // the follow-up the delivery started reads too
    const after = c.deps.store.stats();
    return {
      reads: after.reads - before.reads,
      queries: after.queries - before.queries,
      writes: after.writes - before.writes,
      rowsQueried: rows,
      scans,
    };
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

/** A coordinator holding `stored` ended events of the previous release, after the upgrade's first sweep. */
async function withStoredEvents(stored: number): Promise<TestCoordinator> {
  const c = await coordinator();
  // One event delivered the ordinary way: the template of the stored rows.
  await post(c, [eventGridEvent(uuid(999_999), "Completed", ["app-0"])]);
  const template = await firstEventRow(c.connectionString, c.prefix, "appliances");
  await seedStoredEvents(c.connectionString, c.prefix, template, stored);
  await c.handlers.sweep(); // the upgrade's sweep indexes the rows the previous release stored
  await c.deps.controlPlane.settle();
  return c;
}

const BATCH = 40;
const batch = (status: string) =>
  Array.from({ length: BATCH }, (_, i) =>
    eventGridEvent(uuid(i), status, [`app-${2 * i}`, `app-${2 * i + 1}`]),
  );

describe("the cost of an Event Grid delivery", () => {
  it("does not depend on the number of events stored: the same operations and rows at 10 and at 1,000", async () => {
    const measured: Record<number, unknown> = {};
    for (const stored of [10, 1000]) {
      const c = await withStoredEvents(stored);
      const first = await costOf(c, async () => {
        const r = await post(c, batch("Scheduled"));
        expect(r.body).toMatchObject({ applied: BATCH, clusters: ["appliances"] });
      });
      const again = await costOf(c, async () => {
        const r = await post(c, batch("Scheduled"));
        expect(r.body).toMatchObject({ applied: 0, unchanged: BATCH });
      });
      const started = await costOf(c, async () => {
        const r = await post(c, batch("Started"));
        expect(r.body).toMatchObject({ applied: BATCH, clusters: ["appliances"] });
      });
      measured[stored] = { first, again, started };
    }
    expect(measured[1000]).toEqual(measured[10]);
    // Per event: a few point operations, and not one query across partitions.
    const at = measured[1000] as Record<string, { reads: number; queries: number; scans: number }>;
    for (const cost of Object.values(at)) {
      expect(cost.scans).toBe(0);
      expect((cost.reads + cost.queries) / BATCH).toBeLessThanOrEqual(8);
    }
    console.log(JSON.stringify(measured));
  }, 120_000);
});

/** The index row of an event, as an instance of the previous release leaves it: none. */
async function dropIndexRow(c: TestCoordinator, eventId: string, cluster: string) {
  const index = TableClient.fromConnectionString(c.connectionString, `${c.prefix}EventIndex`, {
    allowInsecureConnection: true,
  });
  const row = eventIndexRow(eventId.toLowerCase(), cluster);
  await index.deleteEntity(row.partitionKey, row.rowKey);
}

const reportInto = async (c: TestCoordinator, eventId: string) => {
  const ev = freezeEvent(["web-0"], { EventId: eventId });
  const r = await postReport(
    c,
    makeReport("web-0", { cluster: "web", incarnation: 1, events: [ev] }),
  );
  expect(r.status).toBe(200);
};
const eventIn = (c: TestCoordinator, id: string) =>
  call(
    c.handlers.event,
    request("GET", `events/${id}`, { key: c.operatorKey, params: { eventId: id } }),
  );

describe("events stored before the index (an upgrade)", () => {
  it("finds an event the previous release stored in its cluster, by a scan until the first sweep indexed it, by the index after", async () => {
    const c = await coordinator();
    const id = uuid(7001);
    await reportInto(c, id);
    await dropIndexRow(c, id, "web");
    // Nobody claims this scope: only finding the event where it is held puts it in `web`.
    const started = await post(c, [eventGridEvent(id, "Started", ["web-0"], STRAY)]);
    expect(started.body).toMatchObject({ applied: 1, unclaimed: 0, clusters: ["web"] });
    expect((await eventIn(c, id)).body).toMatchObject({ cluster: "web", status: "Started" });

    expect(await c.handlers.sweep()).toMatchObject({ eventsIndexed: 1 });
    const cost = await costOf(c, async () => {
      const done = await post(c, [eventGridEvent(id, "Completed", ["web-0"], STRAY)]);
      expect(done.body).toMatchObject({ applied: 1, unclaimed: 0, clusters: ["web"] });
    });
    expect(cost.scans).toBe(0);
    // A second sweep has nothing left to index, and does not look again.
    expect(await c.handlers.sweep()).toMatchObject({ eventsIndexed: 0 });
  });

  it("indexes, at the next sweep, an event an instance of the previous release created after the backfill", async () => {
    const c = await coordinator();
    await c.handlers.sweep(); // the backfill: nothing to index, the marker written
    const id = uuid(7002);
    await reportInto(c, id);
    await dropIndexRow(c, id, "web"); // written by the previous release, beside this one
    const other = await otherInstance(c);
    await other.handlers.sweep();
    const cost = await costOf(c, async () => {
      const r = await post(c, [eventGridEvent(id, "Started", ["web-0"], STRAY)]);
      expect(r.body).toMatchObject({ applied: 1, unclaimed: 0, clusters: ["web"] });
    });
    expect(cost.scans).toBe(0);
  });

  it("takes an index row whose event row was never written (a commit cut short) for nothing", async () => {
    const c = await coordinator();
    await c.handlers.sweep();
    const id = uuid(7003);
    const index = TableClient.fromConnectionString(c.connectionString, `${c.prefix}EventIndex`, {
      allowInsecureConnection: true,
    });
    await index.upsertEntity(eventIndexRow(id, "web"), "Replace");
    expect((await eventIn(c, id)).status).toBe(404);
    const r = await post(c, [eventGridEvent(id, "Scheduled", ["lonely"], STRAY)]);
    expect(r.body).toMatchObject({ applied: 1, unclaimed: 1, clusters: ["unclaimed"] });
    expect((await eventIn(c, id)).body).toMatchObject({ cluster: "unclaimed" });
  });
});
