import { createHash } from "node:crypto";
import { odata } from "@azure/data-tables";
import { NotificationKind, NotificationSink } from "@quiesce/protocol/policy";
import { z } from "zod";
import { type StoredEntity, toEntity } from "../store/codec";
import { encodeKey } from "../store/keys";
import { decodeRow, parseColumns } from "../store/rows";
import { ConcurrencyConflict, type CountedTable } from "../store/tables";
import type { Notification } from "./due";

/**
 * The durable outbox: one row per (notification key, sink), PK the cluster, RK derived from the
 * key alone. Every instance derives the same RK for the same fact, so "create → 409" is the
 * dedupe; the row is then claimed under its ETag by whoever delivers it, and ends delivered or
 * dropped. Rows are kept (for the dedupe and the status API) until the retention purge.
 */

export const OutboxState = z.enum(["pending", "delivered", "dropped"]);
export type OutboxState = z.infer<typeof OutboxState>;

/** The row's plain columns, as `enqueue` and `write` set them. */
const OutboxColumns = z.object({
  partitionKey: z.string(),
  rowKey: z.string(),
  etag: z.string().default(""),
  state: OutboxState,
  sink: NotificationSink,
  cluster: z.string(),
  kind: z.string(),
  createdAt: z.number(),
  dueAt: z.number(),
  attempts: z.number(),
  claimUntil: z.number(),
  lastError: z.string().default(""),
});

/** The notification, stored as JSON in d0..dN (codec.ts); checked against notify/core.ts's type. */
const StoredNotification = z.object({
  key: z.string(),
  cluster: z.string(),
  kind: NotificationKind,
  severity: z.enum(["info", "warning", "critical"]),
  at: z.number(),
  title: z.string(),
  text: z.string(),
  facts: z.array(z.object({ name: z.string(), value: z.string() })),
  eventId: z.string().optional(),
  vm: z.string().optional(),
});
// The schema and the type are one shape, both ways: a field added to only one fails here.
type Same<A, B> = [A, keyof A] extends [B, keyof B]
  ? [B, keyof B] extends [A, keyof A]
    ? true
    : false
  : false;
export const NOTIFICATION_SCHEMA_MATCHES: Same<
  z.infer<typeof StoredNotification>,
  Notification
> = true;

export const OutboxRow = OutboxColumns.extend({ notification: StoredNotification });
export type OutboxRow = z.infer<typeof OutboxRow>;

export const rowKeyFor = (n: Notification, sink: NotificationSink) =>
  `${n.kind}.${sink}.${createHash("sha256").update(n.key).digest("hex").slice(0, 40)}`;

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
      // Exists: queued already (or a row of this key that does not parse: never sent, listed).
      if (e instanceof ConcurrencyConflict) return null;
      throw e;
    }
  }

  /** Pending rows due now; a claimed one is skipped until its claim runs out. */
  async due(now: number, limit: number): Promise<OutboxRow[]> {
    const rows = await this.table.query(odata`state eq 'pending' and dueAt le ${now}`);
    return this.rows(rows)
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
    return this.rows(await this.table.query(odata`state ne 'delivered'`));
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

  /**
   * Rows through their schema. One that does not parse is left out (never delivered, never
   * claimed; counted and listed by rows.ts) until the retention purge deletes it.
   */
  private rows(entities: StoredEntity[]): OutboxRow[] {
    const out: OutboxRow[] = [];
    for (const e of entities) {
      const row = this.row(e);
      if (row) out.push(row);
    }
    return out;
  }

  private row(e: StoredEntity): OutboxRow | null {
    const columns = parseColumns(this.table, OutboxColumns, e);
    if (!columns.ok) return null;
    const notification = decodeRow(this.table, StoredNotification, e);
    return notification.ok ? { ...columns.value, notification: notification.value } : null;
  }
}
