import type { RelayReport } from "@quiesce/protocol/relay";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  call,
  freezeEvent,
  makeReport,
  postReport,
  request,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { useSinkReceiver } from "@quiesce/testkit/notifications";
import { describe, expect, it } from "vitest";

/**
 * Coverage alerts end to end against Azurite and a loopback receiver: a silent relay, a placement
 * group with no live relay, a VM that never registered, failing IMDS reads; and who may read them.
 */

const azurite = useAzurite();
const SECRET = "s".repeat(40);
const sinks = useSinkReceiver(SECRET);

describe("notifications", () => {
  it("alerts once on a relay that went silent, on a placement group left with no live relay, on a VM that never registered and on a relay whose IMDS reads fail", async () => {
    const from = sinks.receiver.received.length;
    const c = await testCoordinator(azurite().connectionString, {
      clock: sinks.clock,
      settings: sinks.sinkSettings({ default: { notify: { sinks: ["webhook"] } } }),
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
      sinks.clock.advance(60_000);
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
          since: new Date(sinks.clock.now() - 45_000).toISOString(),
          lastError: "connect ETIMEDOUT 169.254.169.254:80",
        },
      }),
    );
    await c.handlers.sweep();
    await c.handlers.sweep(); // a second round finds everything queued already
    await c.deps.notifier.settled();

    const got = sinks.webhookMessages(from);
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
    const c = await testCoordinator(azurite().connectionString, { clock: sinks.clock });
    expect((await call(c.handlers.alerts, request("GET", "alerts"))).status).toBe(401);
    expect(
      (await call(c.handlers.alerts, request("GET", "alerts", { key: c.relayKey }))).status,
    ).toBe(403);
  });
});
