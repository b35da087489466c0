import {
  createCoordinator,
  loadCoordinatorSettings,
  localMetrics,
  pointsNamed,
} from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  freezeEvent,
  makeReport,
  postReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { useSinkReceiver } from "@quiesce/testkit/notifications";
import { describe, expect, it } from "vitest";

/**
 * Notifications end to end against Azurite and a loopback receiver: one message per event
 * transition and sink however many instances race, retries through a flaky sink, and drops past
 * the deadline.
 */

const azurite = useAzurite();
const SECRET = "s".repeat(40);
const sinks = useSinkReceiver(SECRET);

const EVENT_KINDS = [
  "observed",
  "approved",
  "started",
  "completed",
  "cancelled",
  "expiredAtNotBefore",
];

const settle = (cs: TestCoordinator[]) => Promise.all(cs.map((c) => c.deps.notifier.settled()));
const sweepAll = async (cs: TestCoordinator[]) => {
  await Promise.all(cs.map((c) => c.handlers.sweep()));
  await settle(cs);
};

const withHooks = (r: RelayReport, hooks: RelayReport["hooks"]): RelayReport => ({ ...r, hooks });

describe("notifications", () => {
  it("sends each event transition once per sink from three racing instances, through a sink failing three times", async () => {
    const policy = { default: { notify: { on: EVENT_KINDS } } };
    const first = await testCoordinator(azurite().connectionString, {
      clock: sinks.clock,
      settings: sinks.sinkSettings(policy),
    });
    const others = await Promise.all(
      [1, 2].map(() =>
        testCoordinator(azurite().connectionString, {
          clock: sinks.clock,
          settings: { ...sinks.sinkSettings(policy), QUIESCE_TABLE_PREFIX: first.prefix },
        }),
      ),
    );
    const cs = [first, ...others];
    const from = sinks.receiver.received.length;
    sinks.failNext.webhook = { n: 3, status: 503 };
    const webhookAttemptsBefore = sinks.attemptsBySink.webhook ?? 0;

    const vms = ["web-0", "web-1", "web-2"];
    const ev: ScheduledEvent = freezeEvent(vms);
    // Every report goes to all three instances at once.
    const everywhere = async (r: RelayReport) =>
      (await Promise.all(cs.map((c) => postReport(c, r)))).map((x) => x.body);

    let seq = 1;
    for (const vm of vms) await everywhere(makeReport(vm, { events: [ev], seq: seq++ }));
    const approvers: string[] = [];
    for (const vm of vms) {
      const bodies = await everywhere(
        makeReport(vm, { events: [ev], drained: [ev.EventId], seq: seq++ }),
      );
      if (bodies.some((b) => b.directives.some((d: { kind: string }) => d.kind === "approve")))
        approvers.push(vm);
    }
    // The relay whose report completes readiness is elected, and it alone.
    expect(approvers).toEqual(["web-2"]);
    const at = new Date(sinks.clock.now()).toISOString();
    await everywhere(
      makeReport("web-2", {
        events: [ev],
        drained: [ev.EventId],
        seq: seq++,
        approvals: [{ eventId: ev.EventId, outcome: "accepted", at, httpStatus: 200 }],
      }),
    );
    const started = { ...ev, EventStatus: "Started" as const, NotBefore: "" };
    for (const vm of vms)
      await everywhere(
        makeReport(vm, { incarnation: 2, events: [started], drained: [ev.EventId], seq: seq++ }),
      );
    for (const vm of vms) {
      const done = makeReport(vm, { incarnation: 3, events: [], seq: seq++ });
      await everywhere(
        withHooks(done, [
          {
            eventId: ev.EventId,
            drain: { status: "succeeded", attempt: 1, startedAt: at, finishedAt: at },
            recover: { status: "succeeded", attempt: 1, startedAt: at, finishedAt: at },
          },
        ]),
      );
    }
    await settle(cs);
    // The flaky webhook is retried by the sweeps (backoff with jitter) until it takes them all.
    for (let round = 0; round < 8; round++) {
      sinks.clock.advance(30_000);
      await sweepAll(cs);
    }

    const kinds = ["observed", "approved", "started", "completed"];
    const hooks = sinks.webhookMessages(from);
    expect(hooks.map((h) => h.kind).sort()).toEqual([...kinds].sort());
    expect(hooks.every((h) => h.eventId === ev.EventId)).toBe(true);
    for (const sink of ["teams", "slack"])
      expect(sinks.receiver.received.slice(from).filter((m) => m.sink === sink)).toHaveLength(
        kinds.length,
      );
    expect((sinks.attemptsBySink.webhook ?? 0) - webhookAttemptsBefore).toBe(kinds.length + 3);

    const alerts = await call(
      first.handlers.alerts,
      request("GET", "alerts", { key: first.operatorKey }),
    );
    expect(alerts.status).toBe(200);
    expect(alerts.body.notifications).toMatchObject({ pending: 0, dropped: 0 });
  });

  it("drops a message its sink keeps refusing after the deadline, counts it, and shows it in GET /api/alerts, while reports are answered as usual", async () => {
    const metrics = localMetrics();
    const prefix = `t${Math.random().toString(36).slice(2, 10)}`;
    const operatorKey = "o".repeat(32);
    const relayKey = "r".repeat(32);
    const c = await createCoordinator(
      loadCoordinatorSettings({
        QUIESCE_STORAGE_CONNECTION_STRING: azurite().connectionString,
        QUIESCE_TABLE_PREFIX: prefix,
        QUIESCE_AUTH_MODE: "sharedKey",
        QUIESCE_RELAY_KEY: relayKey,
        QUIESCE_OPERATOR_KEY: operatorKey,
        QUIESCE_SLACK_WEBHOOK_URL: sinks.receiver.url("slack"),
        QUIESCE_NOTIFY_DEADLINE_MINUTES: "2",
        QUIESCE_POLICY: JSON.stringify({
          default: { notify: { on: ["observed"], sinks: ["slack"] } },
        }),
      }),
      { clock: sinks.clock, meter: metrics.meter },
    );
    sinks.failNext.slack = { n: 1000, status: 500 };
    const ev = freezeEvent(["db-0"]);
    const answered = await call(
      c.handlers.report,
      request("POST", "relay/report", {
        key: relayKey,
        body: makeReport("db-0", { cluster: "db", events: [ev] }),
      }),
    );
    expect(answered.status).toBe(200);
    await c.deps.notifier.settled();
    for (let round = 0; round < 8; round++) {
      sinks.clock.advance(30_000);
      await c.handlers.sweep();
    }
    sinks.failNext.slack = { n: 0, status: 500 };

    const alerts = await call(c.handlers.alerts, request("GET", "alerts", { key: operatorKey }));
    expect(alerts.body.notifications.dropped).toBe(1);
    expect(alerts.body.notifications.undelivered[0]).toMatchObject({
      state: "dropped",
      kind: "observed",
      sink: "slack",
      eventId: ev.EventId,
      lastError: expect.stringContaining("HTTP 500"),
    });
    expect(JSON.stringify(alerts.body)).not.toContain(sinks.receiver.url("slack"));
    const points = await metrics.points();
    expect(
      pointsNamed(points, "quiesce.notifications", { outcome: "dropped", sink: "slack" })[0]?.value,
    ).toBe(1);
    expect(
      pointsNamed(points, "quiesce.notifications", { outcome: "retried" })[0]?.value,
    ).toBeGreaterThan(1);
    await metrics.shutdown();
  });
});
