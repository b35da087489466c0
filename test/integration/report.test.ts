import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import { startTestAzurite, useAzurite } from "@quiesce/testkit/azurite";
import { startLocalEntra } from "@quiesce/testkit/entra";
import {
  call,
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  request,
  resourceIdOf,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();

const report = postReport;

/** A relay retries a 503 (every attempt lost its race) after Retry-After, as the real one does. */
async function reportUntilAccepted(c: TestCoordinator, body: RelayReport) {
  for (let i = 0; i < 20; i++) {
    const res = await report(c, body);
    if (res.status !== 503) return { ...res, retries: i };
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 50));
  }
  throw new Error(`${body.vm.name}: still 503 after 20 tries`);
}

describe("POST /api/relay/report", () => {
  it("registers a relay and answers an idle heartbeat with the idle interval", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const res = await report(c, makeReport("web-0"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      protocol: "1.2",
      applied: true,
      nextReportInSeconds: DEFAULT_POLICY.idleReportSeconds,
      directives: [],
      hooksStored: [],
      activeReportSeconds: DEFAULT_POLICY.activeReportSeconds,
    });
    const tables = await dumpTables(c.connectionString, c.prefix);
    expect(tables.Members).toHaveLength(1);
  });

  it("elects exactly one approver once every VM named in Resources has drained", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0", "web-1"]);
    await report(c, makeReport("web-0"));
    await report(c, makeReport("web-1"));
    const first = await report(
      c,
      makeReport("web-0", { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    expect(first.body.directives).toEqual([]);
    const second = await report(
      c,
      makeReport("web-1", { incarnation: 2, events: [ev], drained: [ev.EventId] }),
    );
    expect(second.body.directives).toEqual([
      expect.objectContaining({ kind: "approve", eventIds: [ev.EventId] }),
    ]);
  });

  it("50 relays reporting concurrently on one event lose no readiness update and produce exactly one approver", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const vms = Array.from({ length: 50 }, (_, i) => `node-${String(i).padStart(2, "0")}`);
    const ev = freezeEvent(vms);
    await Promise.all(vms.map((vm) => reportUntilAccepted(c, makeReport(vm))));
    // The event appears everywhere at once, then every drain finishes at once.
    const seen = await Promise.all(
      vms.map((vm) => reportUntilAccepted(c, makeReport(vm, { incarnation: 2, events: [ev] }))),
    );
    const drained = await Promise.all(
      vms.map((vm) =>
        reportUntilAccepted(
          c,
          makeReport(vm, { incarnation: 2, events: [ev], drained: [ev.EventId] }),
        ),
      ),
    );
    // And once more: heartbeats while the lease is held must not elect anyone else.
    const again = await Promise.all(
      vms.map((vm) =>
        reportUntilAccepted(
          c,
          makeReport(vm, { incarnation: 2, events: [ev], drained: [ev.EventId] }),
        ),
      ),
    );
    const approvers = new Set<string>();
    for (const round of [seen, drained, again])
      round.forEach((res, i) => {
        expect(res.status).toBe(200);
        if (res.body.directives.some((d: { kind: string }) => d.kind === "approve"))
          approvers.add(vms[i] as string);
      });
    expect([...approvers]).toHaveLength(1);

    const tables = await dumpTables(c.connectionString, c.prefix);
    const readiness = tables.Readiness as { vm: string; d0: string }[];
    expect(readiness).toHaveLength(50);
    for (const row of readiness) expect(JSON.parse(row.d0).drain?.status).toBe("succeeded");
    const event = JSON.parse((tables.Events as { d0: string }[])[0]?.d0 ?? "null");
    expect(event.lease.holder).toBe([...approvers][0]);
    const retries = [...seen, ...drained, ...again].reduce((n, r) => n + r.retries, 0);
    console.info(
      `50 concurrent relays: ${retries} reports answered 503 and retried; ${c.deps.store.stats().conflicts} ETag conflicts re-decided`,
    );
  });

  it("two events elected at once in one cluster still respect maxEventsInFlight = 1", async () => {
    for (let round = 0; round < 5; round++) {
      const c = await testCoordinator(azurite().connectionString);
      const a = freezeEvent(["web-0", "web-1"]);
      const b = freezeEvent(["web-2", "web-3"]);
      const doc = { incarnation: 1, events: [a, b] };
      for (const vm of ["web-0", "web-1", "web-2", "web-3"]) await report(c, makeReport(vm, doc));
      await report(c, makeReport("web-0", { ...doc, drained: [a.EventId] }));
      await report(c, makeReport("web-2", { ...doc, drained: [b.EventId] }));
      // The last drain of each event lands at the same moment on two instances.
      const answers = await Promise.all([
        reportUntilAccepted(c, makeReport("web-1", { ...doc, drained: [a.EventId] })),
        reportUntilAccepted(c, makeReport("web-3", { ...doc, drained: [b.EventId] })),
      ]);
      const approvals = answers.flatMap((r) =>
        r.body.directives.filter((d: { kind: string }) => d.kind === "approve"),
      );
      expect(approvals).toHaveLength(1);
      const events = (
        (await dumpTables(c.connectionString, c.prefix)).Events as { d0: string }[]
      ).map((r) => JSON.parse(r.d0));
      expect(events.filter((e) => e.phase === "Approving")).toHaveLength(1);
    }
  });

  it("answers 503 with Retry-After on every route when Table Storage cannot be reached", async () => {
    const own = await startTestAzurite();
    const c = await testCoordinator(own.connectionString);
    await own.stop();
    const key = c.operatorKey;
    // At once: each waits out the SDK's own retries of a refused connection.
    const [reportAnswer, status, cluster, event, hold] = await Promise.all([
      report(c, makeReport("web-0")),
      call(c.handlers.status, request("GET", "status", { key })),
      call(c.handlers.cluster, request("GET", "clusters/web", { key, params: { cluster: "web" } })),
      call(c.handlers.event, request("GET", "events/E1", { key, params: { eventId: "E1" } })),
      call(
        c.handlers.hold,
        request("POST", "events/E1/hold", {
          key,
          params: { eventId: "E1" },
          body: { reason: "incident" },
        }),
      ),
    ]);
    const answers = { report: reportAnswer, status, cluster, event, hold };
    for (const [route, res] of Object.entries(answers)) {
      expect({ route, status: res.status }).toEqual({ route, status: 503 });
      expect(res.headers.get("retry-after")).toBe("5");
      expect(res.body.error).toMatch(/state store unavailable/);
    }
  });

  it("ignores a report with an older DocumentIncarnation and changes nothing", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const ev = freezeEvent(["web-0"]);
    await report(c, makeReport("web-0", { incarnation: 3, events: [ev] }));
    const before = await dumpTables(c.connectionString, c.prefix);
    const stale = await report(c, makeReport("web-0", { incarnation: 2, events: [] }));
    expect(stale.status).toBe(200);
    expect(stale.body.applied).toBe(false);
    expect(await dumpTables(c.connectionString, c.prefix)).toEqual(before);
  });

  describe("bad input gets a 4xx naming the problem and writes nothing", () => {
    const cases: [
      string,
      () => { raw?: string; body?: unknown; headers?: Record<string, string> },
      number,
      RegExp,
    ][] = [
      ["malformed JSON", () => ({ raw: '{"protocol":"1.0",' }), 400, /body is not JSON/],
      ["an empty body", () => ({ raw: "" }), 400, /body is not JSON/],
      ["a body over the limit", () => ({ raw: `"${"x".repeat(300_000)}"` }), 413, /262144 bytes/],
      [
        "a Content-Length over the limit",
        () => ({ raw: "{}", headers: { "content-length": "999999" } }),
        413,
        /limit of 262144 bytes/,
      ],
      [
        "a wrongly-typed field",
        () => ({
          body: { ...makeReport("web-0"), relay: { version: "1", bootId: "b", seq: "one" } },
        }),
        400,
        /relay\.seq/,
      ],
      [
        "a missing field",
        () => ({ body: { ...makeReport("web-0"), cluster: undefined } }),
        400,
        /cluster/,
      ],
      [
        "an unknown protocol major version",
        () => ({ body: { ...makeReport("web-0"), protocol: "2.0" } }),
        400,
        /unsupported protocol version "2\.0"/,
      ],
      [
        "a control character in the VM name",
        () => ({ body: makeReport("web\u00000") }),
        400,
        /vm\.name/,
      ],
      [
        "an OData injection in the cluster name",
        () => ({ body: makeReport("web-0", { cluster: "web' or PartitionKey ne '" }) }),
        400,
        /cluster/,
      ],
      ["a JSON array", () => ({ raw: "[]" }), 400, /invalid report/],
    ];
    it.each(cases)("%s", async (_name, input, status, message) => {
      const c = await testCoordinator(azurite().connectionString);
      await report(c, makeReport("web-1")); // something in the tables, to prove it stays as is
      const before = await dumpTables(c.connectionString, c.prefix);
      const res = await call(
        c.handlers.report,
        request("POST", "relay/report", { key: c.relayKey, ...input() }),
      );
      expect(res.status).toBe(status);
      expect(res.body.error).toMatch(message);
      expect(await dumpTables(c.connectionString, c.prefix)).toEqual(before);
    });
  });

  it("refuses a report without credentials (401) or with a wrong key (401), writing nothing", async () => {
    const c = await testCoordinator(azurite().connectionString);
    const none = await call(
      c.handlers.report,
      request("POST", "relay/report", { body: makeReport("web-0") }),
    );
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/Bearer/);
    const wrong = await report(c, makeReport("web-0"), "not-the-relay-key-at-all");
    expect(wrong.status).toBe(401);
    const tables = await dumpTables(c.connectionString, c.prefix);
    expect(Object.values(tables).flat()).toHaveLength(0);
  });

  it("refuses a relay's managed identity reporting for another VM (403), writing nothing", async () => {
    const entra = await startLocalEntra();
    try {
      const c = await testCoordinator(azurite().connectionString, {
        settings: { ...entra.settings },
      });
      const token = await entra.mint(entra.relayClaims(resourceIdOf("web-0")));
      const other = await report(c, makeReport("web-1"), token);
      expect(other.status).toBe(403);
      expect(other.body.error).toMatch(/web-1/);
      expect(Object.values(await dumpTables(c.connectionString, c.prefix)).flat()).toHaveLength(0);
      const own = await report(c, makeReport("web-0"), token);
      expect(own.status).toBe(200);
    } finally {
      await entra.stop();
    }
  });
});
