import { odata } from "@azure/data-tables";
import type { EventRecord, Member, Readiness } from "@quiesce/core";
import { type Dict, dict } from "@quiesce/protocol";
import { PHASES, type Phase } from "@quiesce/protocol/status";
import type { HistoryRow } from "./clusterStore";
import { fromEntity, type StoredEntity } from "./codec";
import { decodeKey, encodeKey, eventPartition } from "./keys";
import type { Tables } from "./tables";

/**
 * What the status API reads, in proportion to the page it answers: filters and `select` keep
 * whole-table reads to a few small columns, and full rows are read only for what is shown.
 * Read-only; never on the report path.
 */

/** An event's place in the listing, from the plain columns beside its JSON (no JSON read). */
export interface EventHead {
  cluster: string;
  key: string;
  eventId: string;
  phase: Phase;
  endedAt: number | null;
  /** The column is written since the status API pages; older rows sort by their last write. */
  firstSeenAt: number;
}

/** Several point reads or queries at once, but not hundreds against one account at a time. */
const CONCURRENCY = 16;

export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const HEAD_COLUMNS = [
  "PartitionKey",
  "RowKey",
  "Timestamp",
  "eventId",
  "phase",
  "endedAt",
  "firstSeenAt",
];
const isPhase = (v: unknown): v is Phase => (PHASES as readonly unknown[]).includes(v);

function headOf(row: StoredEntity): EventHead | null {
  if (!isPhase(row.phase)) return null;
  const parsed = typeof row.timestamp === "string" ? Date.parse(row.timestamp) : Number.NaN;
  const stamp = Number.isFinite(parsed) ? parsed : 0;
  return {
    cluster: decodeKey(row.partitionKey),
    key: decodeKey(row.rowKey),
    eventId: typeof row.eventId === "string" ? row.eventId : decodeKey(row.rowKey),
    phase: row.phase,
    endedAt: typeof row.endedAt === "number" ? row.endedAt : null,
    firstSeenAt: typeof row.firstSeenAt === "number" ? row.firstSeenAt : stamp,
  };
}

export class StatusQueries {
  constructor(private readonly tables: Tables) {}

  /** Event heads, of one cluster or all, active (not ended) or ended, optionally by phase. */
  async eventHeads(opts: {
    cluster?: string;
    ended?: boolean;
    phases?: readonly Phase[];
  }): Promise<EventHead[]> {
    const parts: string[] = [];
    if (opts.cluster !== undefined) parts.push(odata`PartitionKey eq ${encodeKey(opts.cluster)}`);
    if (opts.ended !== undefined) parts.push(odata`ended eq ${opts.ended}`);
    if (opts.phases && opts.phases.length > 0)
      parts.push(`(${opts.phases.map((p) => odata`phase eq ${p}`).join(" or ")})`);
    const filter = parts.length > 0 ? parts.join(" and ") : undefined;
    const rows = await this.tables.Events.query(filter, HEAD_COLUMNS);
    return rows.map(headOf).filter((h): h is EventHead => h !== null);
  }

  /** Full event rows by key, for one page. Missing rows (forgotten meanwhile) are left out. */
  async events(cluster: string, keys: readonly string[]): Promise<EventRecord[]> {
    const pk = encodeKey(cluster);
    const rows = await mapLimit(keys, CONCURRENCY, (k) => this.tables.Events.get(pk, encodeKey(k)));
    return rows.filter((r): r is StoredEntity => r !== null).map((r) => fromEntity<EventRecord>(r));
  }

  async readiness(cluster: string, key: string): Promise<Dict<Readiness>> {
    const pk = eventPartition(cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`);
    const byMember = dict<Readiness>();
    for (const row of rows) byMember[decodeKey(row.rowKey)] = fromEntity<Readiness>(row);
    return byMember;
  }

  /**
   * Members of one cluster or of all, grouped by cluster: the one whole-partition read a
   * summary needs (counts, liveness, groups), done once per request.
   */
  async members(cluster?: string): Promise<Map<string, Member[]>> {
    const filter = cluster === undefined ? undefined : odata`PartitionKey eq ${encodeKey(cluster)}`;
    const rows = await this.tables.Members.query(filter, ["PartitionKey", "RowKey", "n", "d0"]);
    const out = new Map<string, Member[]>();
    const parsed = await mapLimit(rows, CONCURRENCY, async (row) => {
      // A record longer than one column (a member listing very many events) is read whole.
      const full =
        Number(row.n ?? 1) > 1 ? await this.tables.Members.get(row.partitionKey, row.rowKey) : row;
      return full
        ? { cluster: decodeKey(row.partitionKey), member: fromEntity<Member>(full) }
        : null;
    });
    for (const p of parsed) {
      if (!p) continue;
      const list = out.get(p.cluster) ?? [];
      list.push(p.member);
      out.set(p.cluster, list);
    }
    return out;
  }

  /** Named members of one cluster by point reads (an event's few VMs). */
  async membersNamed(cluster: string, memberKeys: readonly string[]): Promise<Member[]> {
    const pk = encodeKey(cluster);
    const rows = await mapLimit(memberKeys, CONCURRENCY, (mk) =>
      this.tables.Members.get(pk, encodeKey(mk)),
    );
    return rows.filter((r): r is StoredEntity => r !== null).map((r) => fromEntity<Member>(r));
  }

  /**
   * The newest `max` history rows of an event, oldest first. Row keys start with the time, so
   * a key-only read finds where the newest `max` begin, and only those rows are read whole.
   */
  async timeline(
    cluster: string,
    key: string,
    max: number,
  ): Promise<{ rows: HistoryRow[]; truncated: boolean }> {
    const pk = eventPartition(cluster, key);
    const keys = await this.tables.History.query(odata`PartitionKey eq ${pk}`, [
      "PartitionKey",
      "RowKey",
    ]);
    const truncated = keys.length > max;
    const from = truncated ? (keys[keys.length - max] as StoredEntity).rowKey : null;
    const rows =
      keys.length === 0
        ? []
        : await this.tables.History.query(
            from === null
              ? odata`PartitionKey eq ${pk}`
              : odata`PartitionKey eq ${pk} and RowKey ge ${from}`,
          );
    return { rows: rows.slice(-max).map((r) => historyRow(key, r)), truncated };
  }
}

export function historyRow(key: string, r: StoredEntity): HistoryRow {
  return {
    at: Number(r.at),
    eventKey: key,
    kind: r.kind === "operator" ? "operator" : "transition",
    from: typeof r.from === "string" ? r.from : null,
    to: typeof r.to === "string" ? r.to : typeof r.action === "string" ? r.action : "",
    reason: String(r.reason ?? ""),
    ...(typeof r.vm === "string" ? { vm: r.vm } : {}),
    ...(typeof r.by === "string" ? { by: r.by } : {}),
  };
}
