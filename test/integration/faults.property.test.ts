import { applyReport } from "@quiesce/core";
import {
  ClusterStore,
  commitDecision,
  isStorageUnavailable,
  loadReport,
  openTables,
  RetriesExhausted,
  withConflictRetry,
  zeroCounts,
} from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import { type Policy, PolicySet, policyFor } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import { useAzurite } from "@quiesce/testkit/azurite";
import { type FaultKind, FaultPlan, withFaults } from "@quiesce/testkit/faults";
import { dumpTables, freezeEvent, makeReport, uniquePrefix } from "@quiesce/testkit/harness";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const azurite = useAzurite();

const T0 = Date.parse("2026-11-23T05:00:00Z");
// Prototype names on purpose: every keyed structure must treat them as plain names.
const VMS = ["constructor", "__proto__", "web-2"] as const;
const POLICY: Policy = policyFor(
  PolicySet.parse({ default: { autoApprove: [{ name: "user", eventSources: ["User"] }] } }),
  "web",
);
const EVENTS: ScheduledEvent[] = [
  freezeEvent(["constructor", "__proto__"], { EventId: "E-FREEZE" }),
  freezeEvent(["web-2"], { EventId: "E-REBOOT", EventType: "Reboot" }),
  freezeEvent(["constructor"], { EventId: "E-USER", EventType: "Reboot", EventSource: "User" }),
  freezeEvent(["__proto__", "web-2"], { EventId: "toString" }),
];

interface Step {
  vm: number;
  newDocument: boolean;
  events: boolean[];
  drains: boolean[];
}

const step = fc.record({
  vm: fc.integer({ min: 0, max: VMS.length - 1 }),
  newDocument: fc.boolean(),
  events: fc.array(fc.boolean(), { minLength: EVENTS.length, maxLength: EVENTS.length }),
  drains: fc.array(fc.boolean(), { minLength: EVENTS.length, maxLength: EVENTS.length }),
});
const FAULT_KINDS: FaultKind[] = [
  "conflictBefore",
  "conflictAfter",
  "unavailableBefore",
  "unavailableAfter",
];
const faults = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.constantFrom(...FAULT_KINDS)), {
    maxLength: 12,
  })
  .map((list) => new Map(list));

/** Honest relays: one document per incarnation, drains only for events naming the VM, kept. */
function reports(steps: Step[]): RelayReport[] {
  const docs = VMS.map(() => ({ incarnation: 1, events: [] as ScheduledEvent[] }));
  const drained = VMS.map(() => new Set<string>());
  return steps.map((s) => {
    const vm = VMS[s.vm] as string;
    const doc = docs[s.vm] as { incarnation: number; events: ScheduledEvent[] };
    if (s.newDocument) {
      doc.incarnation++;
      doc.events = EVENTS.filter((_, i) => s.events[i]);
    }
    const mine = drained[s.vm] as Set<string>;
    doc.events.forEach((ev, i) => {
      if (s.drains[i] && ev.Resources.includes(vm)) mine.add(ev.EventId);
    });
    return makeReport(vm, {
      incarnation: doc.incarnation,
      events: doc.events,
      drained: [...mine].filter((id) => doc.events.some((e) => e.EventId === id)),
    });
  });
}

async function newStore(plan?: FaultPlan): Promise<{ store: ClusterStore; prefix: string }> {
  const prefix = uniquePrefix();
  const totals = zeroCounts();
  const tables = openTables({ connectionString: azurite().connectionString }, prefix, totals);
  const store = new ClusterStore(plan ? withFaults(tables, plan) : tables, totals);
  await store.init();
  return { store, prefix };
}

/** The report handler's unit of work: read, decide, write under ETags, retried on conflicts. */
const apply = (store: ClusterStore, r: RelayReport, now: number, maxAttempts: number) =>
  withConflictRetry(
    async () => {
      const loaded = await loadReport(store, r, { onlyItsEvents: false });
      const d = applyReport(loaded.state, r, now, POLICY);
      await commitDecision(store, loaded, d, { reporter: r.vm.name.toLowerCase() });
      return d;
    },
    { maxAttempts, baseDelayMs: 1 },
  );

/** Members, events and readiness as stored (history may hold a retried transition twice). */
async function durableState(prefix: string) {
  const t = await dumpTables(azurite().connectionString, prefix);
  const rows = (name: string) =>
    (t[name] as Record<string, unknown>[])
      .map(({ partitionKey, rowKey, ...rest }) => {
        const { etag: _e, timestamp: _t, "odata.etag": _o, ...data } = rest;
        return { table: name, partitionKey, rowKey, data };
      })
      .sort((a, b) =>
        `${a.partitionKey}/${a.rowKey}`.localeCompare(`${b.partitionKey}/${b.rowKey}`),
      );
  return [...rows("Members"), ...rows("Events"), ...rows("Readiness")];
}

describe("store under injected write failures", () => {
  it("any failure at any write leaves nothing or a state the resent report completes: same tables as without faults, no orphan rows, no report refused forever", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 2, maxLength: 9 }),
        faults,
        async (steps, at) => {
          const sequence = reports(steps);
          const clean = await newStore();
          const plan = new FaultPlan(at);
          const faulty = await newStore(plan);
          for (const [i, r] of sequence.entries()) {
            const now = T0 + i * 1000;
            await apply(clean.store, r, now, 8);
            let done = false;
            for (let resend = 0; resend < 20 && !done; resend++) {
              try {
                await apply(faulty.store, r, now, 3);
                done = true;
              } catch (e) {
                if (!(e instanceof RetriesExhausted) && !isStorageUnavailable(e)) throw e;
              }
            }
            expect(done, `report ${i} (${r.vm.name}) refused 20 times`).toBe(true);
          }
          const [want, got] = await Promise.all([
            durableState(clean.prefix),
            durableState(faulty.prefix),
          ]);
          expect(got).toEqual(want);
          const events = new Set(
            got.filter((r) => r.table === "Events").map((r) => `${r.partitionKey}|${r.rowKey}`),
          );
          const orphans = got.filter(
            (r) => r.table === "Readiness" && !events.has(String(r.partitionKey)),
          );
          expect(orphans).toEqual([]);
        },
      ),
      { numRuns: Number(process.env.QUIESCE_FAULT_RUNS ?? 20), seed: 20261123 },
    );
  }, 240_000);
});
