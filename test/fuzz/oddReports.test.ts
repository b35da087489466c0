import { TableClient } from "@azure/data-tables";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import { useAzurite } from "@quiesce/testkit/azurite";
import {
  dumpTables,
  freezeEvent,
  makeReport,
  postReport,
  testCoordinator,
} from "@quiesce/testkit/harness";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/**
 * Odd but legal reports (invariant 6) work like any other: valid reports whose EventIds, VM names
 * and texts are whitespace only, start with a comma, carry line or paragraph separators, non-BMP
 * characters, or sit at the length limits; events naming no VM; several relays at once. Each is
 * answered 200 (never a 503 a resend could not cure), and every decision is written whole: no
 * readiness row without its event, no budget row without an election.
 */

const azurite = useAzurite();
const ROUNDS = Number(process.env.QUIESCE_ODD_ROUNDS ?? 60);
const SEED = Number(process.env.QUIESCE_FUZZ_SEED ?? 20261123);

const EVENT_IDS = [
  " ",
  "  ",
  " a",
  "a ",
  ",",
  ",E",
  "E,",
  "\u2028",
  "\u2029",
  "E\u2028F",
  "%budget",
  "%25budget",
  "E-1",
  "e-1",
  "constructor",
  "🙂",
  "🙂".repeat(64),
  "x".repeat(128),
];
const VMS = [
  "web-0",
  "web-1",
  " ",
  ",vm",
  "vm\u2028",
  "\u2029",
  "名前",
  "🙂".repeat(128),
  "a".repeat(256),
  "constructor",
];
const DESCRIPTIONS = ["", " ", "line\u2028separated", "para\u2029graph", "🙂"];

const event = fc
  .record({
    id: fc.constantFrom(...EVENT_IDS),
    resources: fc.subarray(VMS, { maxLength: 3 }),
    status: fc.constantFrom("Scheduled", "Started"),
    source: fc.constantFrom("Platform", "User"),
    description: fc.constantFrom(...DESCRIPTIONS),
  })
  .map(
    (e): ScheduledEvent =>
      freezeEvent(e.resources, {
        EventId: e.id,
        EventStatus: e.status as ScheduledEvent["EventStatus"],
        EventSource: e.source,
        Description: e.description,
        ...(e.status === "Started" ? { NotBefore: "" } : {}),
      }),
  );
/** Up to four relays at once, each with its own document and drains. */
const round = fc.uniqueArray(
  fc.record({
    vm: fc.constantFrom(...VMS),
    events: fc.uniqueArray(event, { maxLength: 3, selector: (e) => e.EventId.toLowerCase() }),
    drained: fc.boolean(),
  }),
  { minLength: 1, maxLength: 4, selector: (r) => r.vm.toLowerCase() },
);

interface Row {
  partitionKey: string;
  rowKey: string;
  to?: string;
}

/** Readiness rows without their event, and budget rows of clusters where no event was elected. */
async function partialDecisions(connectionString: string, prefix: string) {
  const t = (await dumpTables(connectionString, prefix)) as Record<string, Row[]>;
  const events = new Set((t.Events ?? []).map((e) => `${e.partitionKey}|${e.rowKey}`));
  const readiness = (t.Readiness ?? []).filter((r) => !events.has(r.partitionKey));
  // dumpTables leaves the budget rows out: read them on their own.
  const client = TableClient.fromConnectionString(connectionString, `${prefix}Events`, {
    allowInsecureConnection: true,
  });
  const elected = new Set(
    (t.History ?? []).filter((h) => h.to === "Approving").map((h) => h.partitionKey),
  );
  const budgets: string[] = [];
  for await (const b of client.listEntities({ queryOptions: { filter: "RowKey eq '%budget'" } }))
    if (![...elected].some((pk) => pk.startsWith(`${b.partitionKey}|`)))
      budgets.push(b.partitionKey as string);
  return { readiness, budgets };
}

describe("odd but legal reports", () => {
  it(`are each answered 200 and written whole, several relays at once (${ROUNDS} rounds)`, async () => {
    // Many events in flight and user events approved at once: most reports elect, so most
    // decisions go through the election's transaction.
    const policy = {
      default: { maxEventsInFlight: 100, autoApprove: [{ name: "user", eventSources: ["User"] }] },
    };
    const c = await testCoordinator(azurite().connectionString, {
      retry: { maxAttempts: 30 },
      settings: { QUIESCE_POLICY: JSON.stringify(policy) },
    });
    const rounds = fc.sample(round, { numRuns: ROUNDS, seed: SEED });
    const incarnation = new Map<string, number>();
    const byStatus: Record<string, number> = {};
    const refused: string[] = [];
    for (const relays of rounds) {
      await Promise.all(
        relays.map(async (r) => {
          const n = (incarnation.get(r.vm) ?? 0) + 1;
          incarnation.set(r.vm, n);
          const body = makeReport(r.vm, {
            incarnation: n,
            events: r.events,
            drained: r.drained ? r.events.map((e) => e.EventId) : [],
          });
          const res = await postReport(c, body);
          byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
          if (res.status !== 200)
            refused.push(`${res.status} ${JSON.stringify(res.body)}: ${JSON.stringify(body)}`);
        }),
      );
    }
    const partial = await partialDecisions(c.connectionString, c.prefix);
    console.info(
      `odd reports: ${JSON.stringify(byStatus)}; readiness rows without their event: ${partial.readiness.length}; budget rows without an election: ${partial.budgets.length}`,
    );
    expect(refused.slice(0, 3)).toEqual([]);
    expect(partial).toEqual({ readiness: [], budgets: [] });
  }, 600_000);
});
