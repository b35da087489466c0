import { odata } from "@azure/data-tables";
import type { StoredEntity } from "./codec";
import {
  clusterOfMemberPartition,
  decodeKey,
  encodeKey,
  isLegacyMemberPartition,
  legacyMemberPartition,
  memberPartition,
} from "./keys";
import type { CountedTable } from "./tables";

/**
 * The Members table across its two partition schemes (keys.ts): `cluster|NN` buckets, and the one
 * `cluster` partition of releases before them, whose rows the sweep moves into the buckets
 * (memberMigration.ts). Until a pass of the whole table found none left (the marker row), a member
 * not found in its bucket is looked for in the old partition too, so a VM's state (its document's
 * incarnation, its attestation binding) is never taken for absent during a rolling upgrade.
 */

/** The marker row: every member row was in a bucket when it was written. Cluster names cannot start with "~". */
export const MIGRATION_MARKER = { partitionKey: "~migration", rowKey: "members" } as const;

/** How long an instance trusts what it read of the marker before reading it again. */
const MARKER_TTL_MS = 5 * 60_000;

export interface MemberRow {
  row: StoredEntity;
  /** Read from the old `cluster` partition: a write moves it into its bucket. */
  legacy: boolean;
}

export class MemberRows {
  private marker: { migrated: boolean; readAt: number } | undefined;

  constructor(
    readonly table: CountedTable,
    private readonly now: () => number,
  ) {}

  /** One member's row: its bucket's, else (before the migration ended) the old partition's. */
  async get(cluster: string, mk: string): Promise<MemberRow | null> {
    const row = await this.table.get(memberPartition(cluster, mk), encodeKey(mk));
    if (row) return { row, legacy: false };
    if (await this.migrated()) return null;
    const old = await this.table.get(legacyMemberPartition(cluster), encodeKey(mk));
    return old ? { row: old, legacy: true } : null;
  }

  /**
   * Every member row of a cluster (all clusters when undefined): one range query over its
   * buckets, plus, before the migration ended, its old partition; a VM found in both is its
   * bucket row (the one this release writes).
   */
  async query(cluster?: string, select?: string[]): Promise<MemberRow[]> {
    const migrated = await this.migrated();
    const pk = cluster === undefined ? undefined : encodeKey(cluster);
    const [buckets, old] = await Promise.all([
      this.table.query(
        pk === undefined
          ? undefined
          : odata`PartitionKey ge ${`${pk}|`} and PartitionKey lt ${`${pk}}`}`,
        select,
      ),
      migrated || pk === undefined
        ? Promise.resolve([])
        : this.table.query(
            odata`PartitionKey eq ${legacyMemberPartition(cluster as string)}`,
            select,
          ),
    ]);
    // An unfiltered query returns both schemes (and the marker) at once: sort them here.
    const rows = [...buckets, ...old].filter((r) => !r.partitionKey.startsWith("~"));
    const fresh = rows.filter((r) => !isLegacyMemberPartition(r.partitionKey));
    const id = (r: StoredEntity) => `${clusterOfMemberPartition(r.partitionKey)}\n${r.rowKey}`;
    const seen = new Set(fresh.map(id));
    const legacy = migrated
      ? []
      : rows.filter((r) => isLegacyMemberPartition(r.partitionKey) && !seen.has(id(r)));
    return [
      ...fresh.map((row) => ({ row, legacy: false })),
      ...legacy.map((row) => ({ row, legacy: true })),
    ];
  }

  /** The cluster a row belongs to, and its member key. */
  static whose(row: StoredEntity): { cluster: string; mk: string } {
    return { cluster: clusterOfMemberPartition(row.partitionKey), mk: decodeKey(row.rowKey) };
  }

  /** Whether every member row is known to be in its bucket (the marker, read at most every 5 min). */
  async migrated(): Promise<boolean> {
    const now = this.now();
    if (this.marker && (this.marker.migrated || now - this.marker.readAt < MARKER_TTL_MS))
      return this.marker.migrated;
    const row = await this.table.get(MIGRATION_MARKER.partitionKey, MIGRATION_MARKER.rowKey);
    this.marker = { migrated: row !== null, readAt: now };
    return this.marker.migrated;
  }

  /** Called by the migration once a pass found no row left in an old partition. */
  noteMigrated(): void {
    this.marker = { migrated: true, readAt: this.now() };
  }
}
