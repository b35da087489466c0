import { randomBytes } from "node:crypto";
import { odata, TableClient } from "@azure/data-tables";
import {
  createCoordinator,
  loadCoordinatorSettings,
  localMetrics,
  memberPartition,
  pointsNamed,
} from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  freezeEvent,
  ManualClock,
  makeReport,
  postReport,
  request,
  type TestCoordinator,
  uniquePrefix,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";
import previous from "../../functions/src/store/fixtures/rows-bc3f1b9.json";

/**
 * Stored rows are parsed, not trusted (docs/coordinator.md, "Unreadable rows"): a row of any
 * table that does not parse is written straight into Azurite here, and the real handlers must
 * answer as usual (no 500), list it in status, count it in quiesce.store.unreadable_rows, keep
 * approval blocked where the row could have mattered, and let the owning VM's next report heal
 * its own rows (replaced under the unreadable row's ETag, not created: no endless 409).
 */

const azurite = useAzurite();

async function coordinator(settings: Record<string, string> = {}) {
  const metrics = localMetrics();
  const relayKey = randomBytes(24).toString("base64url");
  const operatorKey = randomBytes(24).toString("base64url");
  const prefix = uniquePrefix();
  const clock = new ManualClock();
  const { connectionString } = azurite();
  const c = await createCoordinator(
    loadCoordinatorSettings({
      QUIESCE_STORAGE_CONNECTION_STRING: connectionString,
      QUIESCE_TABLE_PREFIX: prefix,
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: relayKey,
      QUIESCE_OPERATOR_KEY: operatorKey,
      ...settings,
    }),
    { clock, meter: metrics.meter },
  );
  const t: TestCoordinator = { ...c, relayKey, operatorKey, clock, prefix, connectionString };
  const table = (name: string) =>
    TableClient.fromConnectionString(connectionString, `${prefix}${name}`, {
      allowInsecureConnection: true,
    });
  const get = (path: string, params?: Record<string, string>) =>
    request("GET", path, { key: operatorKey, ...(params ? { params } : {}) });
  return {
    c: t,
    table,
    /** Overwrites the JSON of a stored row (or one column), keeping its other columns. */
    corrupt: (name: string, pk: string, rk: string, columns: Record<string, unknown>) =>
      table(name).updateEntity({ partitionKey: pk, rowKey: rk, ...columns }, "Merge"),
    raw: (name: string, pk: string, rk: string) => table(name).getEntity(pk, rk),
    status: () => call(t.handlers.status, get("status")),
    cluster: () => call(t.handlers.cluster, get("clusters/web", { cluster: "web" })),
    event: (id: string) => call(t.handlers.event, get(`events/${id}`, { eventId: id })),
    alerts: () => call(t.handlers.alerts, get("alerts")),
    unreadable: async (tableName: string) =>
      pointsNamed(await metrics.points(), "quiesce.store.unreadable_rows", {
        table: tableName,
      })[0]?.value ?? 0,
  };
}

const approves = (body: { directives: Array<{ kind: string; eventIds?: string[] }> }) =>
  body.directives.filter((d) => d.kind === "approve").flatMap((d) => d.eventIds ?? []);
const listed = (body: { unreadableRows?: Array<{ table: string; rowKey: string }> }) =>
  (body.unreadableRows ?? []).map((u) => `${u.table}/${u.rowKey}`);

describe("rows written by the previous version", () => {
  it("are read and decided on as before: nothing unreadable, the lease holder still approves", async () => {
    const h = await coordinator();
    for (const [name, rows] of Object.entries(previous))
      for (const row of rows) await h.table(name).createEntity(row);
    const status = await h.status();
    expect(status.status).toBe(200);
    expect(status.body.events.map((e: { eventId: string }) => e.eventId).sort()).toEqual([
      "A0A0A0A0-0000-0000-0000-000000000001",
      "B0B0B0B0-0000-0000-0000-000000000002",
    ]);
    expect(status.body.unreadableRows).toBeUndefined();
    const detail = await h.event("A0A0A0A0-0000-0000-0000-000000000001");
    expect(detail.body.timeline.length).toBeGreaterThanOrEqual(3);
    expect((await h.alerts()).body.notifications.undelivered).toHaveLength(2);
    const a = freezeEvent(["web-0", "web-1"], { EventId: "A0A0A0A0-0000-0000-0000-000000000001" });
    const res = await postReport(
      h.c,
      makeReport("web-1", { incarnation: 3, events: [a], drained: [a.EventId] }),
    );
    expect(approves(res.body)).toEqual([a.EventId]); // web-1 holds the stored lease
    for (const t of ["Members", "Events", "Readiness", "History", "Outbox"])
      expect(await h.unreadable(t)).toBe(0);
  });
});

describe("a row that does not parse", () => {
  it("readiness: counts as not drained (no approval), listed and counted; the VM's next report heals it", async () => {
    const h = await coordinator();
    const ev = freezeEvent(["a-0", "a-1"]);
    const key = ev.EventId.toLowerCase();
    await postReport(h.c, makeReport("a-1", { events: [ev], drained: [ev.EventId] }));
    await h.corrupt("Readiness", `web|${key}`, "a-1", { d0: '{"vmName":"a-1","drain":' });
    // a-0 completes the drains as stored: with a-1's row readable it would be elected now.
    const blocked = await postReport(
      h.c,
      makeReport("a-0", { events: [ev], drained: [ev.EventId] }),
    );
    expect(blocked.status).toBe(200);
    expect(approves(blocked.body)).toEqual([]);
    const status = await h.status();
    expect(status.status).toBe(200);
    expect(listed(status.body)).toEqual(["Readiness/a-1"]);
    expect(status.body.unreadableRows[0].problem).toMatch(/^not JSON/);
    expect(status.body.events[0].blockers).toEqual([
      expect.objectContaining({ vm: "a-1", reason: "drainPending" }),
    ]);
    expect(listed((await h.event(ev.EventId)).body)).toEqual(["Readiness/a-1"]);
    expect(await h.unreadable("Readiness")).toBeGreaterThan(0);

    const healed = await postReport(
      h.c,
      makeReport("a-1", { events: [ev], drained: [ev.EventId] }),
    );
    expect(healed.status).toBe(200);
    expect(approves(healed.body)).toEqual([ev.EventId]);
    expect(String((await h.raw("Readiness", `web|${key}`, "a-1")).d0)).toContain('"succeeded"');
    expect((await h.status()).body.unreadableRows).toBeUndefined();
  });

  it("member: counts as no live relay (no approval), listed and counted; its next report heals it", async () => {
    const h = await coordinator();
    const ev = freezeEvent(["b-0", "b-1"]);
    await postReport(h.c, makeReport("b-1", { events: [ev], drained: [ev.EventId] }));
    await h.corrupt("Members", memberPartition("web", "b-1"), "b-1", {
      d0: '{"vmName":"b-1","vm":null}',
    });
    const blocked = await postReport(
      h.c,
      makeReport("b-0", { events: [ev], drained: [ev.EventId] }),
    );
    expect(blocked.status).toBe(200);
    expect(approves(blocked.body)).toEqual([]);
    const status = await h.status();
    expect(listed(status.body)).toEqual(["Members/b-1"]);
    expect(status.body.unreadableRows[0].problem).toContain("vm:");
    const cluster = await h.cluster();
    expect(cluster.status).toBe(200);
    expect(listed(cluster.body)).toEqual(["Members/b-1"]);
    expect(cluster.body.members.map((m: { vm: string }) => m.vm)).toEqual(["b-0"]);
    expect((await h.c.handlers.sweep()).skipped).toEqual([]);
    expect(await h.unreadable("Members")).toBeGreaterThan(0);

    const healed = await postReport(
      h.c,
      makeReport("b-1", { events: [ev], drained: [ev.EventId] }),
    );
    expect(healed.status).toBe(200);
    expect(approves(healed.body)).toEqual([ev.EventId]);
    expect((await h.cluster()).body.unreadableRows).toBeUndefined();
  });

  it("event: quarantined, never rewritten nor approved, holds the budget, refused to operators; deleting it resets it", async () => {
    const h = await coordinator();
    const ev = freezeEvent(["c-0"]);
    const other = freezeEvent(["d-0"]);
    const key = ev.EventId.toLowerCase();
    await postReport(h.c, makeReport("c-0", { events: [ev] }));
    // A row a newer coordinator could have written: a phase this one does not know.
    const stored = await h.raw("Events", "web", key);
    const d0 = String(stored.d0).replace('"phase":"Observed"', '"phase":"Acknowledging"');
    await h.corrupt("Events", "web", key, { d0 });
    const before = await h.raw("Events", "web", key);

    const res = await postReport(h.c, makeReport("c-0", { events: [ev], drained: [ev.EventId] }));
    expect(res.status).toBe(200);
    expect(approves(res.body)).toEqual([]);
    // Another event, drained, waits: the quarantined one may be in flight (budget 1).
    const waits = await postReport(
      h.c,
      makeReport("d-0", { events: [other], drained: [other.EventId] }),
    );
    expect(approves(waits.body)).toEqual([]);
    expect((await h.c.handlers.sweep()).skipped).toEqual([]);
    expect((await h.raw("Events", "web", key)).etag).toBe(before.etag); // never overwritten

    const status = await h.status();
    expect(status.status).toBe(200);
    expect(listed(status.body)).toEqual([`Events/${key}`]);
    expect(status.body.unreadableRows[0].problem).toMatch(/^phase: /);
    const detail = await h.event(ev.EventId);
    expect(detail.status).toBe(409);
    expect(detail.body.error).toContain("quarantined");
    const hold = await call(
      h.c.handlers.hold,
      request("POST", `events/${ev.EventId}/hold`, {
        key: h.c.operatorKey,
        params: { eventId: ev.EventId },
        body: { reason: "look", cluster: "web" },
      }),
    );
    expect(hold.status).toBe(409);
    expect(await h.unreadable("Events")).toBeGreaterThan(0);

    // The operator's way out: delete the row; the next report starts the event afresh.
    await h.table("Events").deleteEntity("web", key);
    const fresh = await postReport(h.c, makeReport("c-0", { events: [ev], drained: [ev.EventId] }));
    expect(approves(fresh.body)).toEqual([ev.EventId]);
  });

  it("event head columns, history and outbox: left out, listed and counted, never a 500", async () => {
    const h = await coordinator({
      QUIESCE_WEBHOOK_URL: "http://127.0.0.1:9/hook",
      QUIESCE_WEBHOOK_SECRET: "s".repeat(32),
      QUIESCE_POLICY: JSON.stringify({
        default: { notify: { on: ["observed"], sinks: ["webhook"] } },
      }),
    });
    const ev = freezeEvent(["e-0"]);
    const other = freezeEvent(["e-0"]);
    const key = ev.EventId.toLowerCase();
    await postReport(h.c, makeReport("e-0", { incarnation: 1, events: [ev, other] }));
    await h.c.deps.notifier.settled();
    await h.corrupt("Events", "web", other.EventId.toLowerCase(), { phase: 7 });
    const pk = `web|${key}`;
    const historyKeys: string[] = [];
    for await (const row of h
      .table("History")
      .listEntities({ queryOptions: { filter: odata`PartitionKey eq ${pk}` } }))
      historyKeys.push(String(row.rowKey));
    const history = { rowKey: historyKeys[0] ?? "" };
    await h.corrupt("History", pk, history.rowKey, { at: "yesterday" });
    const outbox = (await h.table("Outbox").listEntities().next()).value;
    await h.corrupt("Outbox", outbox.partitionKey, outbox.rowKey, { d0: "[]" });

    const status = await h.status();
    expect(status.status).toBe(200);
    expect(listed(status.body)).toEqual([`Events/${other.EventId.toLowerCase()}`]);
    expect(status.body.events.map((e: { eventId: string }) => e.eventId)).toEqual([ev.EventId]);
    const detail = await h.event(ev.EventId);
    expect(detail.status).toBe(200);
    // The event's own history row, and the other event's head (read for the budget).
    expect(listed(detail.body)).toContain(`History/${history.rowKey}`);
    expect(
      detail.body.unreadableRows.find((u: { table: string }) => u.table === "History").problem,
    ).toMatch(/^at: /);
    // Every move is still shown: the rest from their rows, the unreadable row's from the event
    // row's journal (functions/src/store/journal.ts).
    expect(detail.body.timeline).toHaveLength(historyKeys.length);
    h.c.clock.advance(60_000);
    expect((await h.c.handlers.sweep()).skipped).toEqual([]);
    expect(
      (await postReport(h.c, makeReport("e-0", { incarnation: 1, events: [ev, other] }))).status,
    ).toBe(200);
    const alerts = await h.alerts();
    expect(alerts.status).toBe(200);
    expect(listed(alerts.body)).toEqual([`Outbox/${outbox.rowKey}`]);
    expect(await h.unreadable("History")).toBeGreaterThan(0);
    expect(await h.unreadable("Outbox")).toBeGreaterThan(0);
    expect(await h.unreadable("Events")).toBeGreaterThan(0);
  });
});
