import {
  CountedTable,
  type OpCounts,
  type StoredEntity,
  type TableName,
  type Tables,
  tableClient,
} from "@quiesce/functions";

/**
 * Figure (h)'s instrument: the coordinator's tables, each call also tallied by partition key (a
 * point read or a write is one entity, a query as many entities as it returned).
 */

export type Tally = Map<string, number>;

/** CountedTable that also tallies entities per partition key. */
export class TalliedTable extends CountedTable {
  constructor(
    client: ReturnType<typeof tableClient>,
    totals: OpCounts,
    private readonly name: TableName,
    private readonly tally: Tally,
  ) {
    super(client, totals, undefined, name);
  }
  private add(pk: string, n: number): void {
    const k = `${this.name}\n${pk}`;
    this.tally.set(k, (this.tally.get(k) ?? 0) + n);
  }
  override async get(pk: string, rk: string) {
    this.add(pk, 1);
    return super.get(pk, rk);
  }
  override async query(filter: string | undefined, select?: string[]) {
    const rows = await super.query(filter, select);
    if (rows.length === 0)
      this.add(/PartitionKey (?:eq|ge) '([^']*)'/.exec(filter ?? "")?.[1] ?? "?", 1);
    for (const r of rows) this.add(r.partitionKey, 1);
    return rows;
  }
  override async insert(e: StoredEntity) {
    this.add(e.partitionKey, 1);
    return super.insert(e);
  }
  override async upsertTogether(rows: readonly StoredEntity[]) {
    for (const e of rows) this.add(e.partitionKey, 1);
    return super.upsertTogether(rows);
  }
  override async replace(e: StoredEntity, etag: string) {
    this.add(e.partitionKey, 1);
    return super.replace(e, etag);
  }
  override async remove(pk: string, rk: string, etag?: string) {
    this.add(pk, 1);
    return super.remove(pk, rk, etag);
  }
}

/** The four tables of a coordinator (`prefix`), tallied into `tally`, counted into `totals`. */
export function talliedTables(
  connectionString: string,
  prefix: string,
  totals: OpCounts,
  tally: Tally,
): Tables {
  const tallied = (t: TableName) =>
    new TalliedTable(tableClient({ connectionString }, `${prefix}${t}`), totals, t, tally);
  return {
    Members: tallied("Members"),
    Events: tallied("Events"),
    Readiness: tallied("Readiness"),
    History: tallied("History"),
    EventIndex: tallied("EventIndex"),
  };
}
