import { applyReport } from "@quiesce/core";
import {
  ClusterStore,
  commitDecision,
  decodeKey,
  loadReport,
  openTables,
  StatusQueries,
  withConflictRetry,
  zeroCounts,
} from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import { type Policy, PolicySet, policyFor } from "@quiesce/protocol/policy";
import type { RelayReport } from "@quiesce/protocol/relay";
import { useAzurite } from "@quiesce/testkit/azurite";
import { FAULT_KINDS, type FaultKind, FaultPlan, withFaults } from "@quiesce/testkit/faults";
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
// Odd but legal EventIds and text, each of which once failed the election's transaction on
// Azurite (store/batchBody.ts): a leading comma, a line separator, a paragraph separator.
const EVENTS: ScheduledEvent[] = [
  freezeEvent(["constructor", "__proto__"], { EventId: ",E-FREEZE" }),
  freezeEvent(["web-2"], { EventId: "E-\u2028REBOOT", EventType: "Reboot" }),
  freezeEvent(["constructor"], {
    EventId: "E-USER",
    EventType: "Reboot",
    EventSource: "User",
    Description: "restarted from the portal\u2029by an operator",
  }),
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
const apply = (
  store: ClusterStore,
  r: RelayReport,
  now: number,
  maxAttempts: number,
  policy: Policy = POLICY,
) =>
  withConflictRetry(
    async () => {
      const loaded = await loadReport(store, r, { onlyItsEvents: false });
      const d = applyReport(loaded.state, r, now, policy);
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

/**
 * One fault of each way the writer can see one: a lost race (retried at once), before or after
 * the write; a status the store answers 503 for; a refused request (answered 500); a timeout or
 * dropped connection (no status), before the write or after it landed.
 */
const ONE_OF_EACH_PATH: readonly FaultKind[] = [
  "conflictBefore",
  "conflictAfter",
  "unavailableBefore",
  "badRequestBefore",
  "serverErrorAfter",
  "timeoutBefore",
  "connectionDropAfter",
];

/**
 * What a relay does: resend the same report until it is applied. Any failure (a lost race, an
 * unavailable store, a refused or timed-out request, a dropped connection) refuses this attempt
 * only; a report still refused after 20 resends is refused forever.
 */
async function resendUntilApplied(
  store: ClusterStore,
  r: RelayReport,
  now: number,
  policy: Policy = POLICY,
) {
  const failures: string[] = [];
  for (let resend = 0; resend < 20; resend++) {
    try {
      await apply(store, r, now, 3, policy);
      return;
    } catch (e) {
      failures.push(String((e as Error).message ?? e));
    }
  }
  throw new Error(`${r.vm.name}'s report refused 20 times: ${failures.slice(-3).join("; ")}`);
}

/**
 * Every event's timeline as the status API reads it, one line per move: a transition the state
 * records must be there, even when the write of its history row failed or was never reached.
 */
async function timelines(store: ClusterStore, state: Awaited<ReturnType<typeof durableState>>) {
  const queries = new StatusQueries(store.tables, store.memberRows);
  const out: string[] = [];
  for (const r of state.filter((row) => row.table === "Events")) {
    const key = decodeKey(String(r.rowKey));
    const { rows } = await queries.timeline("web", key, 1000);
    for (const h of rows)
      if (h.kind === "transition") out.push(`${key}: ${h.from} -> ${h.to} (${h.reason})`);
  }
  return [...new Set(out)].sort();
}

/** Readiness rows whose event row is missing: a decision written in part. */
function orphans(state: Awaited<ReturnType<typeof durableState>>) {
  const events = new Set(
    state.filter((r) => r.table === "Events").map((r) => `${r.partitionKey}|${r.rowKey}`),
  );
  return state.filter((r) => r.table === "Readiness" && !events.has(String(r.partitionKey)));
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
          const faulty = await newStore(new FaultPlan(at));
          for (const [i, r] of sequence.entries()) {
            const now = T0 + i * 1000;
            await apply(clean.store, r, now, 8);
            await resendUntilApplied(faulty.store, r, now);
          }
          const [want, got] = await Promise.all([
            durableState(clean.prefix),
            durableState(faulty.prefix),
          ]);
          expect(got).toEqual(want);
          expect(orphans(got)).toEqual([]);
          expect(await timelines(faulty.store, got)).toEqual(await timelines(clean.store, want));
        },
      ),
      { numRuns: Number(process.env.QUIESCE_FAULT_RUNS ?? 20), seed: 20261123 },
    );
  }, 240_000);

  it("an election's commit (readiness row, the budget row's transaction, history, member) failed at each of its writes in each way leaves nothing or a state its resend completes", async () => {
    // Two in flight, so each electing report claims: constructor's drain of the user event
    // approves it at first sight (its new row created in the transaction); __proto__'s drain,
    // the last ,E-FREEZE waited for, elects it (its row replaced in the transaction).
    const policy = policyFor(
      PolicySet.parse({
        default: {
          autoApprove: [{ name: "user", eventSources: ["User"] }],
          maxEventsInFlight: 2,
        },
      }),
      "web",
    );
    const freeze = EVENTS[0] as ScheduledEvent;
    const user = EVENTS[2] as ScheduledEvent;
    const both = { incarnation: 3, events: [freeze, user] };
    const sequence = [
      makeReport("__proto__", { incarnation: 2, events: [freeze] }),
      makeReport("constructor", { incarnation: 2, events: [freeze] }),
      makeReport("constructor", { ...both, drained: [freeze.EventId, user.EventId] }),
      makeReport("__proto__", { ...both, drained: [freeze.EventId] }),
    ];
    const clean = await newStore();
    const writesBefore: number[] = [];
    const after: Awaited<ReturnType<typeof durableState>>[] = [];
    const moves: string[][] = [];
    for (const [i, r] of sequence.entries()) {
      writesBefore.push(clean.store.stats().writes);
      await apply(clean.store, r, T0 + i * 1000, 8, policy);
      after.push(await durableState(clean.prefix));
      moves.push(await timelines(clean.store, after[i] ?? []));
    }
    writesBefore.push(clean.store.stats().writes);
    expect(after[3]?.filter((r) => r.table === "Events").map((r) => r.data.phase)).toEqual([
      "Approving",
      "Approving",
    ]);
    let cases = 0;
    for (const k of [2, 3])
      for (let w = writesBefore[k] as number; w < (writesBefore[k + 1] as number); w++)
        for (const kind of ONE_OF_EACH_PATH) {
          const faulty = await newStore(new FaultPlan(new Map([[w, kind]])));
          for (const [i, r] of sequence.slice(0, k + 1).entries())
            await resendUntilApplied(faulty.store, r, T0 + i * 1000, policy);
          const got = await durableState(faulty.prefix);
          expect(got, `write ${w} (report ${k}) failed: ${kind}`).toEqual(after[k]);
          expect(orphans(got)).toEqual([]);
          expect(await timelines(faulty.store, got), `write ${w}: ${kind}`).toEqual(moves[k]);
          cases++;
        }
    // Each electing report writes at least its readiness row, the transaction and its member.
    expect(cases).toBeGreaterThanOrEqual(2 * 3 * ONE_OF_EACH_PATH.length);
  }, 240_000);
});
