import {
  applyReport,
  type ClusterState,
  type EventRecord,
  type Member,
  type Readiness,
} from "@quiesce/core";
import {
  type ClusterStore,
  ConcurrencyConflict,
  commitDecision,
  loadReport,
  withConflictRetry,
} from "@quiesce/functions";
import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { useAzurite } from "@quiesce/testkit/azurite";
import { freezeEvent, makeReport, testStore } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();
/** A report's load with all the cluster's events, decided once (no election round). */
const all = { onlyItsEvents: false };

const newStore = (): Promise<ClusterStore> => testStore(azurite().connectionString);

const NOW = Date.parse("2026-11-23T05:00:00Z");

function member(vmName: string): Member {
  return {
    vmName,
    vm: { name: vmName, vmId: "id", resourceId: `/x/virtualMachines/${vmName}` },
    relayVersion: "1.0.0",
    dryRun: false,
    bootId: "b",
    incarnation: 1,
    eventKeys: [],
    firstSeenAt: NOW,
    lastSeenAt: NOW,
  };
}

function event(key: string, resources: string[]): EventRecord {
  return {
    key,
    eventId: key.toUpperCase(),
    eventType: "Freeze",
    eventSource: "Platform",
    durationInSeconds: 5,
    description: null,
    resources,
    status: "Scheduled",
    notBefore: NOW + 900_000,
    phase: "Draining",
    phaseSince: NOW,
    firstSeenAt: NOW,
    firstSeenBy: resources[0] ?? "",
    firstSeenStarted: false,
    startedAt: null,
    leftAt: null,
    endedAt: null,
    lease: null,
    failedApprovers: [],
    approvedAt: null,
    approvedBy: null,
    approvalRule: null,
    hold: null,
    force: null,
  };
}

const readiness = (vmName: string): Readiness => ({
  vmName,
  inDocument: true,
  affected: true,
  drain: null,
  recover: null,
  firstSeenAt: NOW,
  updatedAt: NOW,
});

/** Writes a whole hand-made state as new entities (what a first report would create). */
async function seed(store: ClusterStore, state: ClusterState): Promise<void> {
  const loaded = await store.loadCluster(state.cluster);
  await commitDecision(store, loaded, {
    state,
    transitions: [],
    forget: [],
  });
}

describe("ClusterStore against Azurite", () => {
  it("round-trips VM names and EventIds with / \\ # ? ' % and control characters", async () => {
    const store = await newStore();
    const names = [
      "a/b",
      "c\\d",
      "e#f",
      "g?h",
      "it's",
      "100%",
      "tab\there",
      "nul\u0000x",
      "del\u007fx",
      "c1\u0085x",
      "Ünï-名前-🙂",
    ];
    const keys = names.map((n) => n.toLowerCase());
    const eventKeys = ["ev/1#?", "ev'2\\%", "ev\u00013"];
    const state: ClusterState = {
      cluster: "nasty",
      members: Object.fromEntries(names.map((n, i) => [keys[i] as string, member(n)])),
      events: Object.fromEntries(eventKeys.map((k) => [k, event(k, names)])),
      readiness: Object.fromEntries(
        eventKeys.map((k) => [
          k,
          Object.fromEntries(names.map((n, i) => [keys[i] as string, readiness(n)])),
        ]),
      ),
    };
    await seed(store, state);
    const back = await store.loadCluster("nasty");
    expect(back.state).toEqual(state);
    expect(await store.findEventClusters("ev'2\\%")).toEqual(["nasty"]);
    expect(await store.findEventClusters("x' or RowKey ne '")).toEqual([]);
  });

  it("stores an event naming 1,000 VMs (split across string properties)", async () => {
    const store = await newStore();
    const vms = Array.from(
      { length: 1000 },
      (_, i) => `a-rather-long-vm-name-in-a-big-scale-set_${String(i).padStart(4, "0")}`,
    );
    const state: ClusterState = {
      cluster: "big",
      members: {},
      events: { big1: event("big1", vms) },
      readiness: { big1: {} },
    };
    await seed(store, state);
    const back = await store.loadCluster("big");
    expect(back.state.events.big1?.resources).toEqual(vms);
  });

  it("refuses a write based on a stale read (412/409) and a retry from a fresh read succeeds", async () => {
    const store = await newStore();
    const ev = freezeEvent(["web-0", "web-1"]);
    const a = makeReport("web-0", { incarnation: 1, events: [ev] });
    const b = makeReport("web-1", { incarnation: 1, events: [ev] });
    // Both read before either writes: both decide to create the event.
    const [la, lb] = await Promise.all([loadReport(store, a, all), loadReport(store, b, all)]);
    const da = applyReport(la.state, a, NOW, DEFAULT_POLICY);
    const db = applyReport(lb.state, b, NOW, DEFAULT_POLICY);
    await commitDecision(store, la, da, { reporter: "web-0" });
    await expect(commitDecision(store, lb, db, { reporter: "web-1" })).rejects.toBeInstanceOf(
      ConcurrencyConflict,
    );
    let attempts = 0;
    await withConflictRetry(async () => {
      attempts++;
      const l = await loadReport(store, b, all);
      await commitDecision(store, l, applyReport(l.state, b, NOW, DEFAULT_POLICY), {
        reporter: "web-1",
      });
    });
    expect(attempts).toBe(1);
    const back = await store.loadCluster("web");
    const key = ev.EventId.toLowerCase();
    expect(Object.keys(back.state.readiness[key] ?? {}).sort()).toEqual(["web-0", "web-1"]);
    expect(Object.keys(back.state.members).sort()).toEqual(["web-0", "web-1"]);
  });

  it("two concurrent applies of one event both land through the retry loop", async () => {
    const store = await newStore();
    const ev = freezeEvent(["web-0", "web-1"]);
    const apply = (vm: string) =>
      withConflictRetry(async () => {
        const r = makeReport(vm, { incarnation: 1, events: [ev], drained: [ev.EventId] });
        const l = await loadReport(store, r, all);
        const d = applyReport(l.state, r, NOW, DEFAULT_POLICY);
        await commitDecision(store, l, d, { reporter: vm });
        return d;
      });
    const [d0, d1] = await Promise.all([apply("web-0"), apply("web-1")]);
    const approvals = [d0, d1].flatMap((d) =>
      d.reply.directives.filter((x) => x.kind === "approve"),
    );
    expect(approvals).toHaveLength(1);
    const back = await store.loadCluster("web");
    const key = ev.EventId.toLowerCase();
    expect(Object.values(back.state.readiness[key] ?? {}).map((r) => r.drain?.status)).toEqual([
      "succeeded",
      "succeeded",
    ]);
  });
});
