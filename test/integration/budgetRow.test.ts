import { applyReport } from "@quiesce/core";
import {
  type ClusterStore,
  ConcurrencyConflict,
  commitDecision,
  loadReport,
  StatusQueries,
} from "@quiesce/functions";
import { DEFAULT_POLICY, type Policy, PolicySet, policyFor } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import { useAzurite } from "@quiesce/testkit/azurite";
import { freezeEvent, makeReport, testStore } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

/**
 * Elections serialise on the cluster's budget row (functions/src/store/budget.ts), written with
 * the events entering Approving in one transaction, and on nothing else: an election no longer
 * rewrites the cluster's other events, so drains in other groups do not fail it.
 */

const azurite = useAzurite();
const NOW = Date.parse("2026-11-23T05:00:00Z");
/** A load with the cluster's events, as an election reads them. */
const all = { onlyItsEvents: false };

const newStore = (): Promise<ClusterStore> => testStore(azurite().connectionString);

async function apply(store: ClusterStore, r: RelayReport, policy: Policy = DEFAULT_POLICY) {
  const l = await loadReport(store, r, all);
  const d = applyReport(l.state, r, NOW, policy);
  await commitDecision(store, l, d, { reporter: r.vm.name });
  return d;
}

const approves = (d: { reply: { directives: Array<{ kind: string }> } }) =>
  d.reply.directives.some((x) => x.kind === "approve");

describe("the cluster's budget row", () => {
  const a = freezeEvent(["a-0", "a-1"]);
  const b = freezeEvent(["b-0", "b-1"]);
  const doc = (events: (typeof a)[]) => ({ incarnation: 1, events });
  /** Both events' first VMs drained; each event's second VM about to finish. */
  async function twoEventsNearlyReady(store: ClusterStore) {
    for (const [vm, ev] of [
      ["a-0", a],
      ["a-1", a],
      ["b-0", b],
      ["b-1", b],
    ] as const)
      await apply(store, makeReport(vm, doc([ev])));
    await apply(store, makeReport("a-0", { ...doc([a]), drained: [a.EventId] }));
    await apply(store, makeReport("b-0", { ...doc([b]), drained: [b.EventId] }));
  }

  it("lets one of two elections decided on the same reads land: the other fails and, decided again, waits for the budget", async () => {
    const store = await newStore();
    await twoEventsNearlyReady(store);
    const ra = makeReport("a-1", { ...doc([a]), drained: [a.EventId] });
    const rb = makeReport("b-1", { ...doc([b]), drained: [b.EventId] });
    // Both read before either writes, and both decide to elect (maxEventsInFlight 1).
    const [la, lb] = await Promise.all([loadReport(store, ra, all), loadReport(store, rb, all)]);
    const da = applyReport(la.state, ra, NOW, DEFAULT_POLICY);
    const db = applyReport(lb.state, rb, NOW, DEFAULT_POLICY);
    expect([approves(da), approves(db)]).toEqual([true, true]);
    await commitDecision(store, la, da, { reporter: "a-1" });
    // b's election touches no row a's wrote but the budget row: that is what refuses it.
    await expect(commitDecision(store, lb, db, { reporter: "b-1" })).rejects.toBeInstanceOf(
      ConcurrencyConflict,
    );
    expect(approves(await apply(store, rb))).toBe(false);
    const phases = Object.values((await store.loadCluster("web")).state.events).map((e) => e.phase);
    expect(phases.sort()).toEqual(["Approving", "Ready"]);
  });

  it("does not fail an election because another event of the cluster changed after it was read", async () => {
    const store = await newStore();
    await twoEventsNearlyReady(store);
    const c = freezeEvent(["c-0", "c-1", "c-2"]);
    await apply(store, makeReport("c-0", doc([c])));
    const ra = makeReport("a-1", { ...doc([a]), drained: [a.EventId] });
    const la = await loadReport(store, ra, all);
    const da = applyReport(la.state, ra, NOW, DEFAULT_POLICY);
    expect(approves(da)).toBe(true);
    // Meanwhile c-0's drain finishes elsewhere: c's readiness and event row change.
    await apply(store, makeReport("c-0", { ...doc([c]), drained: [c.EventId] }));
    // a's election lands all the same: it rewrites neither c's row nor b's.
    await commitDecision(store, la, da, { reporter: "a-1" });
    const events = (await store.loadCluster("web")).state.events;
    expect(events[a.EventId.toLowerCase()]?.phase).toBe("Approving");
    expect(events[c.EventId.toLowerCase()]?.phase).toBe("Draining");
  });

  it("elects a whole document's 100 events at once: the claims are split across transactions Table Storage takes (100 operations, 4 MiB each)", async () => {
    const store = await newStore();
    const policy = policyFor(
      PolicySet.parse({
        default: {
          maxEventsInFlight: 1000,
          autoApprove: [{ name: "user", eventSources: ["User"] }],
        },
      }),
      "web",
    );
    // User events, approved at first sight, each naming 1,000 VMs with long names (~300 KB a row).
    const vms = Array.from({ length: 1000 }, (_, i) => `vm-${i}-${"x".repeat(240)}`);
    const events = Array.from({ length: 100 }, (_, i) =>
      freezeEvent(i < 12 ? vms : ["a-0"], { EventId: `U-${i}`, EventSource: "User" }),
    );
    const sent: { operations: number; bytes: number }[] = [];
    const writeTogether = store.tables.Events.writeTogether.bind(store.tables.Events);
    store.tables.Events.writeTogether = (writes) => {
      const bytes = writes.reduce((n, w) => n + Buffer.byteLength(JSON.stringify(w.entity)), 0);
      sent.push({ operations: writes.length, bytes });
      return writeTogether(writes);
    };
    const d = await apply(store, makeReport("a-0", doc(events)), policy);
    expect(d.reply.directives.find((x) => x.kind === "approve")).toMatchObject({
      eventIds: expect.arrayContaining(events.map((e) => e.EventId)),
    });
    const phases = Object.values((await store.loadCluster("web")).state.events).map((e) => e.phase);
    expect(phases).toEqual(events.map(() => "Approving"));
    expect(sent.length).toBeGreaterThan(1);
    for (const t of sent) {
      expect(t.operations).toBeLessThanOrEqual(100);
      expect(t.bytes).toBeLessThan(4 * 1024 * 1024);
    }
  }, 120_000);

  it("is not an event: not loaded, listed or counted as one", async () => {
    const store = await newStore();
    await twoEventsNearlyReady(store);
    await apply(store, makeReport("a-1", { ...doc([a]), drained: [a.EventId] }));
    const loaded = await store.loadCluster("web");
    expect(Object.keys(loaded.state.events).sort()).toEqual(
      [a.EventId, b.EventId].map((id) => id.toLowerCase()).sort(),
    );
    expect(loaded.state.unreadableEvents).toBeUndefined();
    expect(loaded.budgetEtag).toEqual(expect.any(String));
    const heads = await new StatusQueries(store.tables, store.memberRows).eventHeads({
      cluster: "web",
    });
    expect(heads.map((h) => h.key).sort()).toEqual(
      [a.EventId, b.EventId].map((id) => id.toLowerCase()).sort(),
    );
  });
});
