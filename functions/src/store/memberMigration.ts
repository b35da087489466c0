import type { StoredEntity } from "./codec";
import { encodeKey, isLegacyMemberPartition, legacyMemberPartition, memberPartition } from "./keys";
import { MemberRows, MIGRATION_MARKER } from "./memberRows";
import { ConcurrencyConflict } from "./tables";

/**
 * Moves member rows from the one-partition-per-cluster scheme of earlier releases into their
 * buckets (keys.ts), online, from the sweep: each row is copied into its bucket (or, when the VM
 * already has a bucket row, the one the VM's relay was heard from last is kept) and then deleted
 * under its ETag. A pass that finds none left writes the marker row, after which reports no
 * longer look in the old partition (memberRows.ts).
 *
 * Why this keeps a rolling upgrade safe: an instance of the previous release beside this one
 * reads and writes only the old partition. Rows it no longer finds it rebuilds from the next
 * report (level-triggered), and until then sees those VMs as without a live relay, which only
 * blocks approvals; the next pass moves what it wrote, keeping the newer of two rows. Nothing is
 * decided on a half-moved row: a row is in its bucket, in the old partition, or in both (the
 * bucket row wins, the pass reconciles).
 */

export interface MigrationPass {
  /** Rows found in old partitions by this pass (before the limit). */
  found: number;
  moved: number;
  /** Rows another instance changed meanwhile: left for the next pass. */
  skipped: number;
  /** The marker is written: no old row was found. */
  complete: boolean;
}

const lastSeen = (r: StoredEntity | null) =>
  typeof r?.lastSeenAt === "number" ? r.lastSeenAt : -1;

export async function migrateMembers(rows: MemberRows, limit = 500): Promise<MigrationPass> {
  const table = rows.table;
  const keys = (await table.query(undefined, ["PartitionKey", "RowKey"])).filter(
    (r) => !r.partitionKey.startsWith("~") && isLegacyMemberPartition(r.partitionKey),
  );
  const pass: MigrationPass = { found: keys.length, moved: 0, skipped: 0, complete: false };
  for (const key of keys.slice(0, limit)) {
    const { cluster, mk } = MemberRows.whose(key);
    try {
      const old = await table.get(legacyMemberPartition(cluster), encodeKey(mk));
      if (!old) continue;
      const pk = memberPartition(cluster, mk);
      const current = await table.get(pk, encodeKey(mk));
      const { etag: _e, partitionKey: _p, ...columns } = old;
      if (!current) await table.insert({ ...columns, partitionKey: pk });
      else if (lastSeen(old) > lastSeen(current) && current.etag)
        await table.replace({ ...columns, partitionKey: pk }, current.etag);
      await table.remove(old.partitionKey, old.rowKey, old.etag ?? "*");
      pass.moved++;
    } catch (e) {
      if (!(e instanceof ConcurrencyConflict)) throw e;
      pass.skipped++;
    }
  }
  if (keys.length === 0) {
    try {
      await table.insert({ ...MIGRATION_MARKER, at: Date.now() });
    } catch (e) {
      if (!(e instanceof ConcurrencyConflict)) throw e; // written by another pass already
    }
    rows.noteMigrated();
    pass.complete = true;
  }
  return pass;
}
