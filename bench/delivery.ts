import { startAzurite } from "@quiesce/functions";
import { AVAILABILITY_SET as AS, scheduledEventEmitted } from "@quiesce/testkit/eventGrid";
import { call, request, testCoordinator } from "@quiesce/testkit/harness";
import { firstEventRow, seedStoredEvents } from "@quiesce/testkit/seed";
import { round } from "./stats";

/**
 * (n) What one Event Grid delivery costs against the events already stored (issue 29: a delivery
 * of 1,000 events took 93 s at 1,000 stored, 183 s again as duplicates, each event scanning the
 * Events table). The real webhook handler and store, in this process, on Azurite: a delivery of
 * 1,000 new events (Scheduled, two VMs without a relay each) for one cluster, then the same batch
 * again (duplicates), at 1,000 and at 100,000 stored events (ended, seeded in transactions of 100
 * with their index rows, as this release keeps them; 1,000 in the delivery's cluster, the rest in
 * 99 others of 1,000). Wall time is the
 * webhook's answer; operations include the follow-up the delivery starts (its agentless and
 * acknowledge check), which runs after the answer.
 */
export interface DeliveryCost {
  wallMs: number;
  /** The follow-up, after the answer, until it settled. */
  followUpMs: number;
  opsPerEvent: { reads: number; queries: number; writes: number; total: number };
}

export interface DeliveryResult {
  date: string;
  batch: number;
  runs: Array<{
    stored: number;
    seedSeconds: number;
    first: DeliveryCost;
    duplicate: DeliveryCost;
  }>;
}

const KEY = "event-grid-key-0123456789";
const PER_CLUSTER = 1_000;

function event(i: number, status: string) {
  const eventId = `6e1c9a52-4f0b-4d7e-9b1a-${String(i).padStart(12, "0")}`;
  const resources = [`app-${2 * i}`, `app-${2 * i + 1}`];
  return scheduledEventEmitted({ eventId, status, resources, id: `delivery-${i}-${status}` });
}

export async function measureDelivery(
  storedCounts: readonly number[],
  batch: number,
  log: (s: string) => void,
): Promise<DeliveryResult> {
  const azurite = await startAzurite();
  const runs: DeliveryResult["runs"] = [];
  try {
    for (const stored of storedCounts) {
      const c = await testCoordinator(azurite.connectionString, {
        settings: {
          QUIESCE_CONTROL_PLANE: "true",
          QUIESCE_CONTROL_PLANE_EVENTS: "true",
          QUIESCE_EVENT_GRID_KEY: KEY,
          QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "0",
          QUIESCE_POLICY: JSON.stringify({ clusters: { appliances: { azureResources: [AS] } } }),
        },
      });
      const post = (body: unknown) =>
        call(c.handlers.eventGrid, request("POST", `maintenance/eventgrid?code=${KEY}`, { body }));
      // One event the ordinary way: the template of the stored rows; then the sweep's backfill.
      await post([event(batch + 1, "Completed")]);
      await c.handlers.sweep();
      const t0 = performance.now();
      const template = await firstEventRow(c.connectionString, c.prefix, "appliances");
      // The delivery's cluster holds up to 1,000 of them, other clusters the rest, 1,000 each:
      // Azurite finds a row by scanning its partition (Table Storage does not), so a partition of
      // 100,000 would measure Azurite; the table's size, which the old scan grew with, is the same.
      for (let i = 0; i * PER_CLUSTER < stored; i++) {
        const cluster = i === 0 ? "appliances" : `stored-${String(i).padStart(3, "0")}`;
        await seedStoredEvents(
          c.connectionString,
          c.prefix,
          { ...template, partitionKey: cluster },
          Math.min(PER_CLUSTER, stored - i * PER_CLUSTER),
          { indexed: true },
        );
      }
      const seedSeconds = round((performance.now() - t0) / 1000, 1);
      log(`(n) ${stored} stored events seeded in ${seedSeconds} s`);
      const deliver = async (status: string, expectApplied: number): Promise<DeliveryCost> => {
        const body = Array.from({ length: batch }, (_, i) => event(i, status));
        const before = c.deps.store.stats();
        const start = performance.now();
        const res = await post(body);
        const answered = performance.now();
        await c.deps.controlPlane.settle();
        const settled = performance.now();
        if (res.status !== 200 || res.body.applied !== expectApplied)
          throw new Error(`(n) delivery answered ${res.status} ${JSON.stringify(res.body)}`);
        const after = c.deps.store.stats();
        const per = (k: "reads" | "queries" | "writes") => round((after[k] - before[k]) / batch, 2);
        const ops = { reads: per("reads"), queries: per("queries"), writes: per("writes") };
        return {
          wallMs: Math.round(answered - start),
          followUpMs: Math.round(settled - answered),
          opsPerEvent: { ...ops, total: round(ops.reads + ops.queries + ops.writes, 2) },
        };
      };
      const first = await deliver("Scheduled", batch);
      const duplicate = await deliver("Scheduled", 0);
      log(
        `(n) ${stored} stored: ${batch} events ${first.wallMs} ms (${first.opsPerEvent.total} ops/event), again ${duplicate.wallMs} ms (${duplicate.opsPerEvent.total} ops/event)`,
      );
      runs.push({ stored, seedSeconds, first, duplicate });
    }
  } finally {
    await azurite.stop();
  }
  return { date: new Date().toISOString(), batch, runs };
}

export function renderDelivery(r: DeliveryResult): string[] {
  const row = (stored: number, what: string, c: DeliveryCost) =>
    `| ${stored.toLocaleString("en-US")} | ${what} | ${c.wallMs} | ${c.followUpMs} | ${c.opsPerEvent.reads} | ${c.opsPerEvent.queries} | ${c.opsPerEvent.writes} | ${c.opsPerEvent.total} |`;
  return [
    "",
    `## (n) An Event Grid delivery of ${r.batch.toLocaleString("en-US")} events against the events stored`,
    "",
    "| Stored events | Delivery | Answered (ms) | Follow-up (ms) | Reads/event | Queries/event | Writes/event | Ops/event |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...r.runs.flatMap((x) => [
      row(x.stored, "new events", x.first),
      row(x.stored, "the same again (duplicates)", x.duplicate),
    ]),
  ];
}
