import { createHash } from "node:crypto";
import { odata } from "@azure/data-tables";
import type { NotificationSink } from "@quiesce/protocol/policy";
import { fromEntity, type StoredEntity, toEntity } from "../store/codec";
import { encodeKey } from "../store/keys";
import { ConcurrencyConflict, type CountedTable } from "../store/tables";
import type { Notification } from "./due";

/**
 * The durable outbox: one row per (notification key, sink), PK the cluster, RK derived from the
 * key alone. Every instance derives the same RK for the same fact, so "create → 409" is the
 * dedupe; the row is then claimed under its ETag by whoever delivers it, and ends delivered or
 * dropped. Rows are kept (for the dedupe and the status API) until the retention purge.
 */

export type OutboxState = "pending" | "delivered" | "dropped";

export interface OutboxRow {
  partitionKey: string;
  rowKey: string;
  etag: string;
  state: OutboxState;
  sink: NotificationSink;
  cluster: string;
  kind: string;
  createdAt: number;
  dueAt: number;
  attempts: number;
  claimUntil: number;
  lastError: string;
  notification: Notification;
}

export const rowKeyFor = (n: Notification, sink: NotificationSink) =>
  `${n.kind}.${sink}.${createHash("sha256").update(n.key).digest("hex").slice(0, 40)}`;

const num = (v: unknown) => (typeof v === "number" ? v : Number(v ?? 0));

export class Outbox {
  constructor(private readonly table: CountedTable) {}

  init(): Promise<void> {
    return this.table.create();
  }

  /** Creates the row; null when it already exists (another instance or an earlier pass queued it). */
  async enqueue(n: Notification, sink: NotificationSink, now: number): Promise<OutboxRow | null> {
    const entity = this.entity(
      { partitionKey: encodeKey(n.cluster), rowKey: rowKeyFor(n, sink) },
      n,
      {
        state: "pending",
        sink,
        createdAt: now,
        dueAt: now,
        attempts: 0,
        claimUntil: 0,
        lastError: "",
      },
    );
    try {
      const etag = await this.table.insert(entity);
      return this.row({ ...entity, etag });
    } catch (e) {
      if (e instanceof ConcurrencyConflict) return null;
      throw e;
    }
  }

  /** Pending rows due now; a claimed one is skipped until its claim runs out. */
  async due(now: number, limit: number): Promise<OutboxRow[]> {
    const rows = await this.table.query(odata`state eq 'pending' and dueAt le ${now}`);
    return rows
      .map((r) => this.row(r))
      .filter((r) => r.claimUntil <= now)
      .sort((a, b) => a.dueAt - b.dueAt)
      .slice(0, limit);
  }

  /** Takes the row for delivery; null when another instance changed it first. */
  async claim(row: OutboxRow, until: number): Promise<OutboxRow | null> {
    return this.write(row, { claimUntil: until });
  }

  write(
    row: OutboxRow,
    patch: Partial<Pick<OutboxRow, "state" | "dueAt" | "attempts" | "claimUntil" | "lastError">> & {
      deliveredAt?: number;
    },
  ): Promise<OutboxRow | null> {
    const next = { ...row, ...patch };
    const entity = this.entity(row, row.notification, {
      state: next.state,
      sink: next.sink,
      createdAt: next.createdAt,
      dueAt: next.dueAt,
      attempts: next.attempts,
      claimUntil: next.claimUntil,
      lastError: next.lastError,
      ...(patch.deliveredAt ? { deliveredAt: patch.deliveredAt } : {}),
    });
    return this.table.replace(entity, row.etag).then(
      (etag) => ({ ...next, etag }),
      (e) => {
        if (e instanceof ConcurrencyConflict) return null;
        throw e;
      },
    );
  }

  /** Rows not delivered (pending and dropped): what the status API shows. */
  async undelivered(): Promise<OutboxRow[]> {
    return (await this.table.query(odata`state ne 'delivered'`)).map((r) => this.row(r));
  }

  async purge(before: number): Promise<number> {
    const rows = await this.table.query(odata`createdAt lt ${before}`, ["PartitionKey", "RowKey"]);
    await this.table.removeAll(rows);
    return rows.length;
  }

  private entity(
    keys: { partitionKey: string; rowKey: string },
    n: Notification,
    columns: Record<string, string | number>,
  ): StoredEntity {
    return toEntity(keys.partitionKey, keys.rowKey, n, {
      ...columns,
      cluster: n.cluster,
      kind: n.kind,
      ...(n.eventId ? { eventId: n.eventId } : {}),
    });
  }

  private row(e: StoredEntity): OutboxRow {
    return {
      partitionKey: e.partitionKey,
      rowKey: e.rowKey,
      etag: e.etag ?? "",
      state: e.state as OutboxState,
      sink: e.sink as NotificationSink,
      cluster: String(e.cluster),
      kind: String(e.kind),
      createdAt: num(e.createdAt),
      dueAt: num(e.dueAt),
      attempts: num(e.attempts),
      claimUntil: num(e.claimUntil),
      lastError: String(e.lastError ?? ""),
      notification: fromEntity<Notification>(e),
    };
  }
}
