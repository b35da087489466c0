import { TableClient, type TableEntity, type TransactionAction } from "@azure/data-tables";
import { eventIndexRow } from "@quiesce/functions";

/**
 * Events a coordinator stored before (ended ones, kept for QUIESCE_EVENT_RETENTION_DAYS), seeded
 * straight into Azurite's Events table in entity group transactions of 100: copies of a real row
 * (`template`, one the coordinator wrote) under new event ids, ended. Quick enough for 100,000
 * rows; what a delivery's cost must not depend on (test/integration/deliveryCost.test.ts,
 * bench/delivery.ts).
 */

export interface StoredEventsOptions {
  /** Event ids: `seeded-<cluster>-<i>` padded, lower case, unless given. */
  idOf?: (i: number) => string;
  /** Also write each one's EventIndex row, as this release would have (default false: an older release's rows). */
  indexed?: boolean;
  /** Transactions in flight (default 8). */
  concurrency?: number;
}

const client = (connectionString: string, name: string) =>
  TableClient.fromConnectionString(connectionString, name, { allowInsecureConnection: true });

/** The first event row of `cluster` in the coordinator's Events table (a template for copies). */
export async function firstEventRow(
  connectionString: string,
  prefix: string,
  cluster: string,
): Promise<TableEntity<Record<string, unknown>>> {
  const events = client(connectionString, `${prefix}Events`);
  for await (const e of events.listEntities<Record<string, unknown>>({
    queryOptions: { filter: `PartitionKey eq '${cluster}'` },
  }))
    if (e.rowKey !== "%budget" && e.partitionKey !== undefined && e.rowKey !== undefined)
      return { ...e, partitionKey: e.partitionKey, rowKey: e.rowKey };
  throw new Error(`no event row in cluster ${cluster}`);
}

export async function seedStoredEvents(
  connectionString: string,
  prefix: string,
  template: TableEntity<Record<string, unknown>>,
  count: number,
  opts: StoredEventsOptions = {},
): Promise<string[]> {
  const cluster = template.partitionKey;
  const idOf = opts.idOf ?? ((i: number) => `seeded-${cluster}-${String(i).padStart(7, "0")}`);
  const record = JSON.parse(String(template.d0)) as Record<string, unknown>;
  const endedAt = Date.now();
  const {
    etag: _e,
    timestamp: _t,
    "odata.etag": _o,
    ...columns
  } = template as Record<string, unknown>;
  const ids = Array.from({ length: count }, (_, i) => idOf(i));
  const rows = ids.map((id) => ({
    ...columns,
    partitionKey: cluster,
    rowKey: id,
    n: 1,
    d0: JSON.stringify({
      ...record,
      key: id,
      eventId: id,
      status: "Completed",
      phase: "Completed",
      endedAt,
    }),
    eventId: id,
    phase: "Completed",
    ended: true,
    endedAt,
  }));
  const events = client(connectionString, `${prefix}Events`);
  const batches: TableEntity[][] = [];
  for (let i = 0; i < rows.length; i += 100) batches.push(rows.slice(i, i + 100));
  await inParallel(batches, opts.concurrency ?? 8, (b) =>
    events.submitTransaction(b.map((e): TransactionAction => ["create", e])),
  );
  if (opts.indexed) {
    const index = client(connectionString, `${prefix}EventIndex`);
    await index.createTable();
    const buckets = new Map<string, TableEntity[]>();
    for (const id of ids) {
      const row = eventIndexRow(id, cluster);
      buckets.set(row.partitionKey, [...(buckets.get(row.partitionKey) ?? []), row]);
    }
    const indexBatches = [...buckets.values()].flatMap((rows) =>
      Array.from({ length: Math.ceil(rows.length / 100) }, (_, i) =>
        rows.slice(i * 100, i * 100 + 100),
      ),
    );
    await inParallel(indexBatches, opts.concurrency ?? 8, (b) =>
      index.submitTransaction(b.map((e): TransactionAction => ["upsert", e, "Replace"])),
    );
  }
  return ids;
}

async function inParallel<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
