import {
  createCoordinator,
  loadCoordinatorSettings,
  localMetrics,
  pointsNamed,
  type ReceivedMessage,
  startWebhookReceiver,
  type WebhookReceiver,
} from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  freezeEvent,
  ManualClock,
  makeReport,
  postReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { QuiesceWebhookMessage } from "@quiesce/testkit/notifications";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Notifications end to end against Azurite and a loopback receiver: one message per event
 * transition and sink however many instances race, retries through a flaky sink, drops past
 * the deadline, and coverage alerts.
 */

const azurite = useAzurite();
const SECRET = "s".repeat(40);
const EVENT_KINDS = [
  "observed",
  "approved",
  "started",
  "completed",
  "cancelled",
  "expiredAtNotBefore",
];

let receiver: WebhookReceiver;
let clock: ManualClock;
/** Per sink: answer with this status for the next N requests, then accept. */
const failNext: Record<string, { n: number; status: number }> = {};
const attemptsBySink: Record<string, number> = {};

beforeAll(async () => {
  clock = new ManualClock();
  receiver = await startWebhookReceiver({
    secret: SECRET,
    now: () => clock.now(),
    respond: (m: ReceivedMessage) => {
      attemptsBySink[m.sink] = (attemptsBySink[m.sink] ?? 0) + 1;
      const f = failNext[m.sink];
      if (f && f.n > 0) {
        f.n--;
        return f.status;
      }
      return m.sink === "slack" ? 200 : 202;
    },
  });
});
afterAll(() => receiver.stop());

const sinkSettings = (policy: unknown, extra: Record<string, string> = {}) => ({
  QUIESCE_TEAMS_WEBHOOK_URL: receiver.url("teams"),
  QUIESCE_SLACK_WEBHOOK_URL: receiver.url("slack"),
  QUIESCE_WEBHOOK_URL: receiver.url("webhook"),
  QUIESCE_WEBHOOK_SECRET: SECRET,
  QUIESCE_POLICY: JSON.stringify(policy),
  ...extra,
});

const settle = (cs: TestCoordinator[]) => Promise.all(cs.map((c) => c.deps.notifier.settled()));
const sweepAll = async (cs: TestCoordinator[]) => {
  await Promise.all(cs.map((c) => c.handlers.sweep()));
  await settle(cs);
};
const webhookKinds = (from: number) =>
  receiver.received
    .slice(from)
    .filter((m) => m.sink === "webhook")
    .map((m) => QuiesceWebhookMessage.parse(m.body));

const withHooks = (r: RelayReport, hooks: RelayReport["hooks"]): RelayReport => ({ ...r, hooks });

describe("notifications", () => {
  it("sends each event transition once per sink from three racing instances, through a sink failing three times", async () => {
    const policy = { default: { notify: { on: EVENT_KINDS } } };
    const first = await testCoordinator(azurite().connectionString, {
      clock,
      settings: sinkSettings(policy),
    });
    const others = await Promise.all(
      [1, 2].map(() =>
        testCoordinator(azurite().connectionString, {
          clock,
          settings: { ...sinkSettings(policy), QUIESCE_TABLE_PREFIX: first.prefix },
        }),
      ),
    );
    const cs = [first, ...others];
    const from = receiver.received.length;
    failNext.webhook = { n: 3, status: 503 };
    const webhookAttemptsBefore = attemptsBySink.webhook ?? 0;

    const vms = ["web-0", "web-1", "web-2"];
    const ev: ScheduledEvent = freezeEvent(vms);
    // Every report goes to all three instances at once.
    const everywhere = async (r: RelayReport) =>
      (await Promise.all(cs.map((c) => postReport(c, r)))).map((x) => x.body);

    let seq = 1;
    for (const vm of vms) await everywhere(makeReport(vm, { events: [ev], seq: seq++ }));
    let approver: string | undefined;
    for (const vm of vms) {
      const bodies = await everywhere(
        makeReport(vm, { events: [ev], drained: [ev.EventId], seq: seq++ }),
      );
      if (bodies.some((b) => b.directives.some((d: { kind: string }) => d.kind === "approve")))
        approver = vm;
    }
    expect(approver).toBeDefined();
    const at = new Date(clock.now()).toISOString();
    await everywhere(
      makeReport(approver as string, {
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
      clock.advance(30_000);
      await sweepAll(cs);
    }

    const kinds = ["observed", "approved", "started", "completed"];
    const hooks = webhookKinds(from);
    expect(hooks.map((h) => h.kind).sort()).toEqual([...kinds].sort());
    expect(hooks.every((h) => h.eventId === ev.EventId)).toBe(true);
    for (const sink of ["teams", "slack"])
      expect(receiver.received.slice(from).filter((m) => m.sink === sink)).toHaveLength(
        kinds.length,
      );
    expect((attemptsBySink.webhook ?? 0) - webhookAttemptsBefore).toBe(kinds.length + 3);

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
        QUIESCE_SLACK_WEBHOOK_URL: receiver.url("slack"),
        QUIESCE_NOTIFY_DEADLINE_MINUTES: "2",
        QUIESCE_POLICY: JSON.stringify({
          default: { notify: { on: ["observed"], sinks: ["slack"] } },
        }),
      }),
      { clock, meter: metrics.meter },
    );
    failNext.slack = { n: 1000, status: 500 };
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
      clock.advance(30_000);
      await c.handlers.sweep();
    }
    failNext.slack = { n: 0, status: 500 };

    const alerts = await call(c.handlers.alerts, request("GET", "alerts", { key: operatorKey }));
    expect(alerts.body.notifications.dropped).toBe(1);
    expect(alerts.body.notifications.undelivered[0]).toMatchObject({
      state: "dropped",
      kind: "observed",
      sink: "slack",
      eventId: ev.EventId,
      lastError: expect.stringContaining("HTTP 500"),
    });
    expect(JSON.stringify(alerts.body)).not.toContain(receiver.url("slack"));
    const points = await metrics.points();
    expect(
      pointsNamed(points, "quiesce.notifications", { outcome: "dropped", sink: "slack" })[0]?.value,
    ).toBe(1);
    expect(
      pointsNamed(points, "quiesce.notifications", { outcome: "retried" })[0]?.value,
    ).toBeGreaterThan(1);
    await metrics.shutdown();
  });

  it("alerts once on a relay that went silent, on a placement group left with no live relay, on a VM that never registered and on a relay whose IMDS reads fail", async () => {
    const from = receiver.received.length;
    const c = await testCoordinator(azurite().connectionString, {
      clock,
      settings: sinkSettings({ default: { notify: { sinks: ["webhook"] } } }),
    });
    const inGroup = (vm: string, pg: string, extra: Partial<RelayReport> = {}): RelayReport => {
      const r = makeReport(vm, { cluster: "cov" });
      return { ...r, vm: { ...r.vm, placementGroupId: pg }, ...extra };
    };
    for (const [vm, pg] of [
      ["cov-0", "pg-a"],
      ["cov-1", "pg-a"],
      ["cov-2", "pg-b"],
      ["cov-3", "pg-b"],
    ] as const)
      await postReport(c, inGroup(vm, pg));
    // cov-2 and cov-3 (all of pg-b) are killed; cov-0 and cov-1 keep reporting.
    // Idle relays are live for 32 min (idleLivenessTimeoutSeconds), then alerted on.
    for (let minute = 0; minute < 33; minute++) {
      clock.advance(60_000);
      await postReport(
        c,
        inGroup("cov-0", "pg-a", { relay: { version: "1.0.0", bootId: "b", seq: 100 + minute } }),
      );
      await postReport(
        c,
        inGroup("cov-1", "pg-a", { relay: { version: "1.0.0", bootId: "b", seq: 100 + minute } }),
      );
    }
    const ev = freezeEvent(["cov-0", "cov-9"]);
    await postReport(c, {
      ...inGroup("cov-0", "pg-a"),
      document: { DocumentIncarnation: 2, Events: [ev] },
    });
    await postReport(
      c,
      inGroup("cov-1", "pg-a", {
        relay: { version: "1.0.0", bootId: "b", seq: 500 },
        imds: {
          failuresInARow: 45,
          since: new Date(clock.now() - 45_000).toISOString(),
          lastError: "connect ETIMEDOUT 169.254.169.254:80",
        },
      }),
    );
    await c.handlers.sweep();
    await c.handlers.sweep(); // a second round finds everything queued already
    await c.deps.notifier.settled();

    const got = webhookKinds(from);
    const byKind = (k: string) => got.filter((m) => m.kind === k);
    expect(
      byKind("relaySilent")
        .map((m) => m.vm)
        .sort(),
    ).toEqual(["cov-2", "cov-3"]);
    expect(byKind("groupUncovered")).toHaveLength(1);
    expect(byKind("groupUncovered")[0]?.title).toContain("pg-b");
    expect(byKind("vmNeverRegistered")).toHaveLength(1);
    expect(byKind("vmNeverRegistered")[0]?.text).toContain("cov-9");
    expect(byKind("imdsFailing").map((m) => m.vm)).toEqual(["cov-1"]);

    const alerts = await call(c.handlers.alerts, request("GET", "alerts", { key: c.operatorKey }));
    const cov = alerts.body.clusters.find((x: { cluster: string }) => x.cluster === "cov");
    expect(cov.silent.map((s: { vm: string }) => s.vm)).toEqual(["cov-2", "cov-3"]);
    expect(cov.uncoveredGroups).toEqual([{ kind: "placementGroup", id: "pg-b", members: 2 }]);
    expect(cov.unregistered).toEqual([{ eventId: ev.EventId, vms: ["cov-9"] }]);
  });

  it("refuses GET /api/alerts without a reader's credentials", async () => {
    const c = await testCoordinator(azurite().connectionString, { clock });
    expect((await call(c.handlers.alerts, request("GET", "alerts"))).status).toBe(401);
    expect(
      (await call(c.handlers.alerts, request("GET", "alerts", { key: c.relayKey }))).status,
    ).toBe(403);
  });
});
