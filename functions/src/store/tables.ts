import { AsyncLocalStorage } from "node:async_hooks";
import type { TableClient, TransactionAction } from "@azure/data-tables";
import { batchableKeys } from "./batchBody";
import type { StoredEntity } from "./codec";
import { pointRead } from "./pointRead";
import { type TableConnection, tableClient } from "./tableClient";

export { type TableConnection, tableClient } from "./tableClient";

/**
 * The only place that talks to Table Storage. Every call is counted (globally, and for the
 * unit of work in progress: one report, one sweep), so tests and benchmarks can hold the store
 * to its budget of table operations per report.
 */

export interface OpCounts {
  reads: number;
  queries: number;
  writes: number;
  conflicts: number;
}

export const zeroCounts = (): OpCounts => ({ reads: 0, queries: 0, writes: 0, conflicts: 0 });

const unitOfWork = new AsyncLocalStorage<OpCounts>();

/** Runs `fn`, returning what it returned and the table operations it cost. */
export async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; ops: OpCounts }> {
  const ops = zeroCounts();
  const value = await unitOfWork.run(ops, fn);
  return { value, ops };
}

/** An ETag precondition failed (412) or the entity to create exists (409): re-read, re-decide. */
export class ConcurrencyConflict extends Error {
  override name = "ConcurrencyConflict";
}

export type TableName = "Members" | "Events" | "Readiness" | "History" | "EventIndex";
export const TABLE_NAMES: readonly TableName[] = [
  "Members",
  "Events",
  "Readiness",
  "History",
  "EventIndex",
];

const statusOf = (e: unknown): number | undefined => (e as { statusCode?: number }).statusCode;

/**
 * Table Storage unreachable, throttling (429) or failing (5xx): not the caller's fault, and
 * likely to pass. Handlers answer 503 so relays retry instead of logging a server error.
 */
export function isStorageUnavailable(e: unknown): boolean {
  if (!(e instanceof Error) || e.name !== "RestError") return false;
  const status = statusOf(e);
  return status === undefined || status === 429 || status >= 500;
}

/** "decode": a row read did not parse (rows.ts); told with outcome "unreadable" and 0 ms. */
export type TableOperation = "get" | "query" | "insert" | "replace" | "delete" | "batch" | "decode";
export type TableOutcome = "ok" | "conflict" | "notFound" | "error" | "unreadable";

/**
 * Told the duration and outcome of every table call, and of every row read that does not parse
 * (metrics); must be cheap and never throw.
 */
export type TableObserver = (
  table: string,
  operation: TableOperation,
  ms: number,
  outcome: TableOutcome,
) => void;

export class CountedTable {
  constructor(
    private readonly client: TableClient,
    private readonly totals: OpCounts,
    private readonly observer?: TableObserver,
    /** The table's name without the prefix ("Members", "Outbox", ...). */
    readonly label = "",
  ) {}

  /** A row of this table did not parse (rows.ts): the observer counts it. */
  unreadable(): void {
    this.observer?.(this.label, "decode", 0, "unreadable");
  }

  /** Times `fn` for the observer, if any (none: no clock read at all). */
  private async timed<T>(
    op: TableOperation,
    fn: () => Promise<T>,
    outcomeOf: (value: T) => TableOutcome = () => "ok",
  ): Promise<T> {
    const observe = this.observer;
    if (!observe) return fn();
    const t0 = performance.now();
    let outcome: TableOutcome = "error";
    try {
      const value = await fn();
      outcome = outcomeOf(value);
      return value;
    } catch (e) {
      const status = statusOf(e);
      outcome =
        status === 409 || status === 412 ? "conflict" : status === 404 ? "notFound" : "error";
      throw e;
    } finally {
      observe(this.label, op, performance.now() - t0, outcome);
    }
  }

  private bump(kind: keyof OpCounts): void {
    this.totals[kind]++;
    const current = unitOfWork.getStore();
    if (current) current[kind]++;
  }

  async create(): Promise<void> {
    await this.client.createTable(); // the SDK treats "already exists" as success
  }

  async get(partitionKey: string, rowKey: string): Promise<StoredEntity | null> {
    this.bump("reads");
    const row = await this.timed(
      "get",
      () => pointRead(this.client, partitionKey, rowKey),
      (r) => (r === null ? "notFound" : "ok"),
    );
    return row === null ? null : storedEntity(row);
  }

  /** `filter` must be built with the `odata` tag: user text is never spliced into it raw. */
  async query(filter: string | undefined, select?: string[]): Promise<StoredEntity[]> {
    const rows: StoredEntity[] = [];
    const pages = this.client
      .listEntities<Record<string, unknown>>({ queryOptions: { filter, select } })
      .byPage({ maxPageSize: 1000 });
    for (;;) {
      this.bump("queries");
      const page = await this.timed("query", () => pages.next());
      if (page.done) break;
      for (const row of page.value) rows.push(storedEntity(row));
      if (!page.value.continuationToken) break;
    }
    return rows;
  }

  /** Creates, or claims: 409 means someone else created it first. Returns the new ETag. */
  async insert(entity: StoredEntity): Promise<string> {
    this.bump("writes");
    try {
      const { etag: _drop, ...body } = entity;
      const res = await this.timed("insert", () => this.client.createEntity(body));
      return res.etag ?? "";
    } catch (e) {
      if (statusOf(e) === 409) {
        this.bump("conflicts");
        throw new ConcurrencyConflict(`${entity.partitionKey}/${entity.rowKey} already exists`);
      }
      throw e;
    }
  }

  /**
   * Creates or replaces rows of one partition, whatever is there (rows every writer writes the
   * same), in one transaction per 100: one operation each.
   */
  async upsertTogether(rows: readonly StoredEntity[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 100) {
      const actions: TransactionAction[] = rows.slice(i, i + 100).map((entity) => {
        const { etag: _drop, ...body } = entity;
        return ["upsert", body, "Replace"];
      });
      this.bump("writes");
      await this.timed("batch", () => this.client.submitTransaction(actions));
    }
  }

  /** Replaces only if unchanged since read (ETag); 412 means someone else wrote it. */
  async replace(entity: StoredEntity, etag: string): Promise<string> {
    this.bump("writes");
    try {
      const { etag: _drop, ...body } = entity;
      const res = await this.timed("replace", () =>
        this.client.updateEntity(body, "Replace", { etag }),
      );
      return res.etag ?? "";
    } catch (e) {
      const status = statusOf(e);
      if (status === 412 || status === 404) {
        this.bump("conflicts");
        throw new ConcurrencyConflict(`${entity.partitionKey}/${entity.rowKey} changed since read`);
      }
      throw e;
    }
  }

  async remove(partitionKey: string, rowKey: string, etag = "*"): Promise<void> {
    this.bump("writes");
    try {
      await this.timed("delete", () => this.client.deleteEntity(partitionKey, rowKey, { etag }));
    } catch (e) {
      if (statusOf(e) === 404) return;
      if (statusOf(e) === 412) {
        this.bump("conflicts");
        throw new ConcurrencyConflict(`${partitionKey}/${rowKey} changed since read`);
      }
      throw e;
    }
  }

  /**
   * Rows of one partition written together, all or nothing (an entity group transaction): each
   * created (no ETag) or replaced under its ETag. One of them changed since read (412), already
   * there (409) or gone (404): ConcurrencyConflict, nothing written. Returns the new ETags in order.
   */
  async writeTogether(
    writes: ReadonlyArray<{ entity: StoredEntity; etag: string | undefined }>,
  ): Promise<string[]> {
    this.bump("writes");
    const actions: TransactionAction[] = writes.map(({ entity, etag }) => {
      const { etag: _drop, ...body } = entity;
      return etag ? ["update", body, "Replace", { etag }] : ["create", body];
    });
    try {
      const res = await this.timed("batch", () => this.client.submitTransaction(actions));
      // By position: the answer names a row by its URL-encoded key, which getResponseForEntity
      // compares with the key as is (a key holding `%` got another row's ETag, or none).
      return writes.map((_, k) => res.subResponses[k]?.etag ?? "");
    } catch (e) {
      const status = statusOf(e);
      if (status === 409 || status === 412 || status === 404) {
        this.bump("conflicts");
        const keys = writes.map((w) => w.entity.rowKey).join(", ");
        throw new ConcurrencyConflict(`one of ${keys} changed since read (${status})`);
      }
      throw e;
    }
  }

  /** Deletes rows of one partition in batches of 100 (one operation each). */
  async removeAll(rows: StoredEntity[]): Promise<void> {
    const byPartition = new Map<string, StoredEntity[]>();
    for (const r of rows)
      if (!batchableKeys(r)) await this.remove(r.partitionKey, r.rowKey);
      else byPartition.set(r.partitionKey, [...(byPartition.get(r.partitionKey) ?? []), r]);
    for (const group of byPartition.values()) {
      for (let i = 0; i < group.length; i += 100) {
        const actions: TransactionAction[] = group
          .slice(i, i + 100)
          .map((r) => ["delete", { partitionKey: r.partitionKey, rowKey: r.rowKey }]);
        this.bump("writes");
        try {
          await this.timed("batch", () => this.client.submitTransaction(actions));
        } catch (e) {
          // A row deleted meanwhile fails the whole batch: fall back to one by one.
          if (statusOf(e) !== 404) throw e;
          for (const r of group.slice(i, i + 100)) await this.remove(r.partitionKey, r.rowKey);
        }
      }
    }
  }
}

/** What the service returns always carries both keys; its properties are checked by rows.ts. */
function storedEntity(e: unknown): StoredEntity {
  if (!isStoredEntity(e)) throw new Error("Table Storage returned an entity without its keys");
  return e;
}

function isStoredEntity(e: unknown): e is StoredEntity {
  return (
    typeof e === "object" &&
    e !== null &&
    "partitionKey" in e &&
    typeof e.partitionKey === "string" &&
    "rowKey" in e &&
    typeof e.rowKey === "string"
  );
}

export type Tables = Record<TableName, CountedTable>;

export function openTables(
  connection: TableConnection,
  prefix: string,
  totals: OpCounts,
  observer?: TableObserver,
): Tables {
  const tables = {} as Tables;
  for (const t of TABLE_NAMES)
    tables[t] = new CountedTable(tableClient(connection, `${prefix}${t}`), totals, observer, t);
  return tables;
}
