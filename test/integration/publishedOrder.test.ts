import type { Notification } from "@quiesce/functions";
import { useAzurite } from "@quiesce/testkit/azurite";
import { AVAILABILITY_SET as AS, scheduledEventEmitted } from "@quiesce/testkit/eventGrid";
import { call, request, type TestCoordinator, testCoordinator } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

/**
 * Event Grid deliveries of one event in reversed orders, each its own webhook call, through the
 * real intake and Azurite (core/src/rules/publishedJoin.ts; the pure proof over every order is
 * core/test/published.property.test.ts and functions/src/published/convergence.test.ts): the
 * stored event reads the same, and the notifications sent are the same, but for the `unplanned`
 * alert a Started delivered before its Scheduled sends while it is true.
 */
const azurite = useAzurite();
const KEY = "event-grid-key-0123456789";

function delivery(eventId: string, status: string) {
  return [
    scheduledEventEmitted({ eventId, status, resources: ["app-0"], id: `${eventId}-${status}` }),
  ];
}

async function coordinator(): Promise<{ c: TestCoordinator; sent: Notification[] }> {
  const c = await testCoordinator(azurite().connectionString, {
    settings: {
      QUIESCE_CONTROL_PLANE: "true",
      QUIESCE_CONTROL_PLANE_EVENTS: "true",
      QUIESCE_EVENT_GRID_KEY: KEY,
      QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "0",
      QUIESCE_POLICY: JSON.stringify({ clusters: { appliances: { azureResources: [AS] } } }),
    },
  });
  // What the intake hands the outbox after each commit, recorded on its way through.
  const sent: Notification[] = [];
  const afterCommit = c.deps.notifier.afterCommit.bind(c.deps.notifier);
  c.deps.notifier.afterCommit = (ns, policy) => {
    sent.push(...ns);
    afterCommit(ns, policy);
  };
  return { c, sent };
}

async function deliverInOrder(c: TestCoordinator, eventId: string, statuses: string[]) {
  for (const s of statuses) {
    const r = await call(
      c.handlers.eventGrid,
      request("POST", `maintenance/eventgrid?code=${KEY}`, { body: delivery(eventId, s) }),
    );
    expect(r.status).toBe(200);
  }
  const r = await call(
    c.handlers.event,
    request("GET", `events/${eventId}?cluster=appliances`, {
      key: c.operatorKey,
      params: { eventId },
    }),
  );
  const e = r.body as Record<string, unknown> & { published?: { status: string } };
  return {
    phase: e.phase,
    status: e.status,
    notBefore: e.notBefore,
    startedFirst: e.startedFirst,
    resources: e.resources,
    published: e.published?.status,
  };
}

const kindsOf = (sent: Notification[], eventId: string) =>
  sent
    .filter((n) => n.eventId?.toLowerCase() === eventId)
    .map((n) => `${n.kind}:${n.severity}`)
    .sort();

describe("published deliveries through the intake, in reversed orders", () => {
  it("store the same event and send the same notifications (Completed → Started → Scheduled, Canceled → Scheduled)", async () => {
    const { c, sent } = await coordinator();
    const pairs = [
      ["Scheduled", "Started", "Completed"],
      ["Scheduled", "Canceled"],
    ];
    for (const [n, statuses] of pairs.entries()) {
      const clean = `0000000${n}-aaaa-4aaa-8aaa-000000000000`;
      const reversed = `0000000${n}-bbbb-4bbb-8bbb-000000000000`;
      const a = await deliverInOrder(c, clean, statuses);
      const b = await deliverInOrder(c, reversed, [...statuses].reverse());
      expect(b).toEqual(a);
      expect(a.notBefore).toBe("2026-11-23T05:15:00.000Z");
      expect(a.startedFirst).toBeNull();
      // Reversed, the Started (then Completed) came first: unplanned was true, and was sent.
      const early = statuses.includes("Started") ? ["unplanned:critical"] : [];
      expect(kindsOf(sent, reversed)).toEqual([...kindsOf(sent, clean), ...early].sort());
    }
  });
});
