import { odata } from "@azure/data-tables";
import { isBudgetRow } from "./budget";
import type { StoredEntity } from "./codec";
import { decodeKey, encodeKey, KeyTooLongError, MAX_KEY_LENGTH, memberBucket } from "./keys";
import { mapLimit } from "./mapLimit";
import type { CountedTable } from "./tables";

/**
 * Which clusters hold an event, found by its id alone (an Event Grid delivery, the status API's
 * `GET /api/events/{id}` without `?cluster`): the EventIndex table, one row per event and cluster,
 * PartitionKey a bucket of the event key (64, keys.ts's FNV hash), RowKey `eventKey|cluster`,
 * both escaped. A lookup is one query of the rows of that event in its bucket, whatever the
 * number of events stored; the Events table, keyed by cluster, can answer it only by a scan of
 * every row (a delivery of 1,000 events took 93 s at 1,000 stored, issue 29). Buckets, rather
 * than a partition per event, let the backfill write 100 rows per transaction.
 *
 * An index row is a hint; the event row is the truth:
 * - it is written (an upsert: every writer writes the same row) **before** the event row is
 *   created, by the commit that creates it (clusterStore.ts), so every event row of this release
 *   has one; a commit that stopped between the two left a row for an event that is not there,
 *   which `clustersOf` drops by a point read of the event row, and the resend writes both;
 * - it is deleted **after** the event row (forgetting), so it never goes missing while the event
 *   is there.
 *
 * Rows written by a release before the index (and, during a rolling upgrade, by its instances)
 * have none. Until the sweep has indexed every event row once (`backfill`, then the marker row),
 * a lookup that finds no index row falls back to the scan, so an upgrade finds every event from
 * the start; after it, no lookup scans. An event an instance of the previous release creates
 * after the marker is indexed by the next sweep (`indexActive`: events not ended, from the
 * sweep's own query), so it is found within a sweep interval.
 */

/** The marker: every event row was indexed once. A bucket is two hex digits, never `%…`. */
const MARKER = { partitionKey: "%backfilled", rowKey: "%backfilled" } as const;

/** The index row of an event (escaped key) in a cluster (escaped name, which holds no `|`). */
export function eventIndexRow(ek: string, cluster: string): StoredEntity {
  const rowKey = `${ek}|${cluster}`;
  if (rowKey.length > MAX_KEY_LENGTH)
    throw new KeyTooLongError(
      `too long to be a table key with its cluster once escaped (${rowKey.length} > ${MAX_KEY_LENGTH} UTF-16 code units)`,
    );
  return { partitionKey: memberBucket(ek), rowKey };
}

/** The escaped cluster of an index row of `ek`, or null for a row of another key in the range. */
function clusterOf(row: { rowKey: string }, ek: string): string | null {
  const bar = row.rowKey.lastIndexOf("|");
  return row.rowKey.slice(0, bar) === ek ? row.rowKey.slice(bar + 1) : null;
}

/** Rows by partition, for transactions. */
function byPartition(rows: readonly StoredEntity[]): StoredEntity[][] {
  const out = new Map<string, StoredEntity[]>();
  for (const r of rows) out.set(r.partitionKey, [...(out.get(r.partitionKey) ?? []), r]);
  return [...out.values()];
}

const CONCURRENCY = 16;
/** Index rows written by one backfill pass (a sweep); the rest in the next ones. */
const BACKFILL_LIMIT = 20_000;
/** Bound of the events this instance knows are indexed (`indexActive`), cleared past it. */
const KNOWN_LIMIT = 100_000;

export interface BackfillPass {
  /** Event rows without an index row, found by this pass. */
  missing: number;
  indexed: number;
  /** The marker is written (or was): lookups no longer fall back to the scan. */
  complete: boolean;
}

const known = (cluster: string, key: string) => `${cluster}\n${key}`;

export class EventIndex {
  /** The marker was seen: every event row of an earlier release is indexed. */
  private complete = false;
  /** Events this instance indexed or saw indexed (cluster, key). */
  private readonly indexed = new Set<string>();

  constructor(
    private readonly table: CountedTable,
    private readonly events: CountedTable,
  ) {}

  /** Index rows for events about to be created in `cluster`: written before the event rows. */
  async add(cluster: string, keys: readonly string[]): Promise<void> {
    // Always written, even for a key this instance indexed before: another may have forgotten
    // it. One transaction per bucket.
    const rows = keys.map((key) => eventIndexRow(encodeKey(key), encodeKey(cluster)));
    await mapLimit(byPartition(rows), CONCURRENCY, (bucket) => this.table.upsertTogether(bucket));
    for (const key of keys) this.remember(cluster, key);
  }

  /** After the event row was deleted. */
  async remove(cluster: string, key: string): Promise<void> {
    this.indexed.delete(known(cluster, key));
    const row = eventIndexRow(encodeKey(key), encodeKey(cluster));
    await this.table.remove(row.partitionKey, row.rowKey);
  }

  /**
   * The clusters holding the event, sorted: one query of its index partition and a point read of
   * each event row it names; the scan only while rows of an earlier release may lack their index.
   */
  async clustersOf(key: string): Promise<string[]> {
    const ek = encodeKey(key);
    const pk = memberBucket(ek);
    const hints = (
      await this.table.query(
        odata`PartitionKey eq ${pk} and RowKey ge ${`${ek}|`} and RowKey lt ${`${ek}}`}`,
        ["PartitionKey", "RowKey"],
      )
    )
      .map((r) => clusterOf(r, ek))
      .filter((c) => c !== null);
    if (hints.length === 0 && !(await this.isComplete())) return this.scan(key);
    const held = await Promise.all(
      hints.map(async (c) => ((await this.events.get(c, ek)) ? c : null)),
    );
    return held
      .filter((c) => c !== null)
      .map(decodeKey)
      .sort();
  }

  /**
   * One pass of the one-time backfill (the sweep's): every event row without an index row gets
   * one, at most `limit` per pass; a pass that finds none missing writes the marker. Costs
   * nothing once this instance saw the marker.
   */
  async backfill(limit = BACKFILL_LIMIT): Promise<BackfillPass> {
    if (await this.isComplete()) return { missing: 0, indexed: 0, complete: true };
    const keyColumns = ["PartitionKey", "RowKey"];
    const [events, rows] = await Promise.all([
      this.events.query(undefined, keyColumns),
      this.table.query(undefined, keyColumns),
    ]);
    const present = new Set(rows.map((r) => r.rowKey));
    const missing = events
      .filter((e) => !isBudgetRow(e))
      .map((e) => eventIndexRow(e.rowKey, e.partitionKey))
      .filter((r) => !present.has(r.rowKey));
    // One transaction per 100 rows of a bucket.
    await mapLimit(byPartition(missing.slice(0, limit)), CONCURRENCY, (rows) =>
      this.table.upsertTogether(rows),
    );
    const complete = missing.length <= limit;
    if (complete) {
      await this.table.upsertTogether([{ ...MARKER, at: Date.now() }]);
      this.complete = true;
    }
    return { missing: missing.length, indexed: Math.min(limit, missing.length), complete };
  }

  /**
   * Events not ended, as the sweep listed them (escaped keys): each one this instance has not
   * seen indexed gets its row. What an instance of the previous release created after the
   * backfill; a no-op once this instance has seen them all.
   */
  async indexActive(rows: readonly { partitionKey: string; rowKey: string }[]): Promise<number> {
    const fresh = rows.filter(
      (r) =>
        !isBudgetRow(r) && !this.indexed.has(known(decodeKey(r.partitionKey), decodeKey(r.rowKey))),
    );
    await mapLimit(
      byPartition(fresh.map((r) => eventIndexRow(r.rowKey, r.partitionKey))),
      CONCURRENCY,
      (rows) => this.table.upsertTogether(rows),
    );
    for (const r of fresh) this.remember(decodeKey(r.partitionKey), decodeKey(r.rowKey));
    return fresh.length;
  }

  private remember(cluster: string, key: string): void {
    if (this.indexed.size >= KNOWN_LIMIT) this.indexed.clear();
    this.indexed.add(known(cluster, key));
  }

  private async isComplete(): Promise<boolean> {
    if (!this.complete)
      this.complete = (await this.table.get(MARKER.partitionKey, MARKER.rowKey)) !== null;
    return this.complete;
  }

  /** Before the backfill: every event row with this key, by a scan of the Events table. */
  private async scan(key: string): Promise<string[]> {
    const rk = encodeKey(key);
    const rows = await this.events.query(odata`RowKey eq ${rk}`, ["PartitionKey", "RowKey"]);
    return rows.map((r) => decodeKey(r.partitionKey)).sort();
  }
}
