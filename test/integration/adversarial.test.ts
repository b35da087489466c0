import { ClusterStore, createHandlers, openTables, zeroCounts } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import { FaultPlan, withFaults } from "@quiesce/testkit/faults";
import {
  call,
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();

/** The same coordinator's handlers over its own tables, with failures injected at chosen writes. */
async function faultyHandlers(c: TestCoordinator, at: Map<number, "conflictBefore">) {
  const totals = zeroCounts();
  const tables = openTables({ connectionString: c.connectionString }, c.prefix, totals);
  const store = new ClusterStore(withFaults(tables, new FaultPlan(at)), totals);
  return createHandlers({ ...c.deps, store, retry: { maxAttempts: 1, baseDelayMs: 1 } });
}

const rowCounts = async (c: TestCoordinator) => {
  const t = await dumpTables(c.connectionString, c.prefix);
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.length]));
};

/** Readiness partitions (cluster|event) with no event row: what a half-written report leaves. */
async function orphanReadiness(c: TestCoordinator): Promise<string[]> {
  const t = await dumpTables(c.connectionString, c.prefix);
  const events = new Set(
    (t.Events as { partitionKey: string; rowKey: string }[]).map(
      (e) => `${e.partitionKey}|${e.rowKey}`,
    ),
  );
  return (t.Readiness as { partitionKey: string }[])
    .map((r) => r.partitionKey)
    .filter((pk) => !events.has(pk));
}

describe("a report interrupted half-way is completed by the next one", () => {
  it("applies, when resent, a report whose first attempt wrote its readiness row but lost the race for the event row", async () => {
    const c = await testCoordinator(azurite().connectionString);
    await postReport(c, makeReport("web-0"));
    const ev = freezeEvent(["web-0"]);
    const body = makeReport("web-0", { incarnation: 2, events: [ev], drained: [ev.EventId] });
    // Write 0 is the readiness row, write 1 the new event row: lose that race once.
    const faulty = await faultyHandlers(c, new Map([[1, "conflictBefore"]]));
    const first = await call(
      faulty.report,
      request("POST", "relay/report", { key: c.relayKey, body }),
    );
    expect(first.status).toBe(503);
    expect(await orphanReadiness(c)).toHaveLength(1);
    const resent = await postReport(c, body);
    expect(resent.status).toBe(200);
    expect(resent.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [ev.EventId] }),
    ]);
    expect(await orphanReadiness(c)).toEqual([]);
  });

  it("applies a resent report that makes a new event approvable while operators hold and release another event of the cluster", async () => {
    const c = await testCoordinator(azurite().connectionString, {
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const busy = freezeEvent(["web-1", "web-2"]);
    await postReport(c, makeReport("web-0"));
    await postReport(c, makeReport("web-1", { incarnation: 2, events: [busy] }));
    const ev = freezeEvent(["web-0"]);
    const body = makeReport("web-0", { incarnation: 2, events: [ev], drained: [ev.EventId] });
    let contending = true;
    const operator = async (i: number) => {
      while (contending) {
        const action = i % 2 === 0 ? "hold" : "release";
        const res = await call(
          c.handlers[action],
          request("POST", `events/${busy.EventId}/${action}`, {
            key: c.operatorKey,
            params: { eventId: busy.EventId },
            body: { reason: `contention ${i}` },
          }),
        );
        expect([200, 503]).toContain(res.status);
      }
    };
    const operators = Array.from({ length: 6 }, (_, i) => operator(i));
    const during = [];
    for (let i = 0; i < 5; i++) during.push((await postReport(c, body)).status);
    contending = false;
    await Promise.all(operators);
    for (const s of during) expect([200, 503]).toContain(s);
    const after = await postReport(c, body);
    expect(after.status).toBe(200);
    const t = await dumpTables(c.connectionString, c.prefix);
    expect(t.Events).toHaveLength(2);
    expect(await orphanReadiness(c)).toEqual([]);
  });
});

describe("odd but legal names", () => {
  const names = ["constructor", "__proto__", "toString", "hasOwnProperty", "CONSTRUCTOR", "𝒱𝓂-🙂"];

  it.each(names)("a VM named %j registers, drains and approves like any other", async (name) => {
    const c = await testCoordinator(azurite().connectionString);
    expect((await postReport(c, makeReport(name))).status).toBe(200);
    expect((await postReport(c, makeReport("web-1"))).status).toBe(200);
    const ev = freezeEvent([name, "web-1"], { EventId: name });
    const a = await postReport(
      c,
      makeReport("web-1", { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    expect(a.status).toBe(200);
    expect(a.body.directives).toEqual([]);
    const b = await postReport(
      c,
      makeReport(name, { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    expect(b.status).toBe(200);
    expect(b.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [name] }),
    ]);
    const shown = await call(
      c.handlers.event,
      request("GET", `events/${name}`, {
        key: c.operatorKey,
        params: { eventId: name },
        headers: {},
      }),
    );
    expect(shown.status).toBe(200);
    expect(shown.body.phase).toBe("Approving");
    expect(await orphanReadiness(c)).toEqual([]);
  });
});

describe("names too long to be table keys", () => {
  it("refuses, whole and naming the field, a report whose escaped VM name, Resources name or EventId is over 512 UTF-16 units", async () => {
    const c = await testCoordinator(azurite().connectionString);
    await postReport(c, makeReport("web-0"));
    const before = await rowCounts(c);
    const longName = "#".repeat(200); // 600 once escaped, 200 as given (the schema allows 256)
    const cases: [unknown, string][] = [
      [makeReport(longName), "vm.name"],
      [
        makeReport("web-0", { incarnation: 2, events: [freezeEvent(["web-0", longName])] }),
        "document.Events.0.Resources.1",
      ],
      [
        makeReport("web-0", {
          incarnation: 2,
          // Lone surrogates escape to %uXXXX: 100 of them are 600 units.
          events: [freezeEvent(["web-0"], { EventId: "\udc00".repeat(100) })],
        }),
        "document.Events.0.EventId",
      ],
    ];
    for (const [body, field] of cases) {
      const res = await postReport(c, body);
      expect({ field, status: res.status, body: res.body }).toMatchObject({ field, status: 400 });
      expect(res.body.error).toContain(field);
    }
    expect(await rowCounts(c)).toEqual(before);
  });

  it("answers 400, not 500, for such an EventId on the status and operator routes", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const id = "\udc00".repeat(100);
    const res = await call(
      c.handlers.hold,
      request("POST", "events/x/hold", {
        key: c.operatorKey,
        params: { eventId: id },
        body: { reason: "r", cluster: "web" },
      }),
    );
    expect(res.status).toBe(400);
    const shown = await call(
      c.handlers.event,
      request("GET", "events/x", { key: c.operatorKey, params: { eventId: id } }),
    );
    expect(shown.status).toBe(400);
  });
});

describe("one dishonest relay", () => {
  it("cannot shrink an event's Resources to get it approved while its neighbour has not drained", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    await postReport(c, makeReport("web-0", { incarnation: 2, events: [ev] }));
    await postReport(c, makeReport("web-1", { incarnation: 2, events: [ev] }));
    const shrunk = { ...ev, Resources: ["web-0"] };
    for (const incarnation of [2, 3, 99]) {
      const lie = await postReport(
        c,
        makeReport("web-0", { incarnation, events: [shrunk], drained: [ev.EventId] }),
      );
      expect(lie.status).toBe(200);
      expect(lie.body.directives).toEqual([]);
    }
    const shown = await call(
      c.handlers.event,
      request("GET", `events/${ev.EventId}`, {
        key: c.operatorKey,
        params: { eventId: ev.EventId },
      }),
    );
    expect(shown.body.resources).toEqual(["web-0", "web-1"]);
    expect(shown.body.blockers.map((b: { vm: string }) => b.vm)).toEqual(["web-1"]);
  });
});
