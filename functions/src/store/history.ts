import { odata } from "@azure/data-tables";
import type { Transition } from "@quiesce/core";
import { z } from "zod";
import type { StoredEntity } from "./codec";
import { type JournalEntry, transitionRowKey } from "./journal";
import { eventPartition } from "./keys";
import type { Tables } from "./tables";

/**
 * History: PK cluster|eventKey; RK time-digest for transitions (journal.ts; time-seq-random in
 * rows of earlier releases), time-seq-random for the operator audit.
 */

/**
 * A history row's plain columns as `append` writes them, parsed on read (statusQueries.ts).
 * Transitions carry from/to, operator actions action/by; `kind` other than "operator" reads as
 * a transition.
 */
export const HistoryEntity = z.object({
  at: z.number(),
  kind: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  action: z.string().optional(),
  reason: z.string().optional(),
  vm: z.string().optional(),
  by: z.string().optional(),
  ttlSeconds: z.number().optional(),
});
export type HistoryEntity = z.infer<typeof HistoryEntity>;

export interface HistoryRow {
  at: number;
  eventKey: string;
  from: string | null;
  to: string;
  reason: string;
  vm?: string;
  by?: string;
  kind: "transition" | "operator";
}

export interface AuditEntry {
  eventKey: string;
  at: number;
  by: string;
  action: string;
  reason: string;
  ttlSeconds?: number;
}

export class HistoryLog {
  private seq = 0;

  constructor(private readonly tables: Tables) {}

  /**
   * Transitions under their move's own key (journal.ts), created or replaced, one write per
   * event: a resend, or the copy of a forgotten event's journal, writes the same row again
   * rather than a second one. An operator action is inserted under a fresh key: each is its own.
   */
  async append(cluster: string, transitions: Transition[], audit?: AuditEntry): Promise<void> {
    const byEvent = new Map<string, JournalEntry[]>();
    for (const t of transitions) byEvent.set(t.eventKey, [...(byEvent.get(t.eventKey) ?? []), t]);
    const writes = [...byEvent].map(([ek, moves]) => this.copyJournal(cluster, ek, moves));
    if (audit)
      writes.push(
        this.tables.History.insert(
          this.entity(cluster, audit.eventKey, audit.at, this.freshKey(audit.at), {
            kind: "operator",
            action: audit.action,
            by: audit.by,
            reason: audit.reason,
            ttlSeconds: audit.ttlSeconds,
          }),
        ).then(() => undefined),
      );
    await Promise.all(writes);
  }

  /** One event's moves as history rows, all in one write (they share the event's partition). */
  async copyJournal(cluster: string, ek: string, moves: readonly JournalEntry[]): Promise<void> {
    if (moves.length === 0) return;
    await this.tables.History.upsertTogether(
      moves.map((t) =>
        this.entity(cluster, ek, t.at, transitionRowKey(ek, t), {
          kind: "transition",
          from: t.from ?? undefined,
          to: t.to,
          reason: t.reason,
          vm: t.vm,
        }),
      ),
    );
  }

  /** Deletes history rows older than the cutoff. */
  async purge(before: number): Promise<number> {
    const rows = await this.tables.History.query(odata`at lt ${before}`, [
      "PartitionKey",
      "RowKey",
    ]);
    await this.tables.History.removeAll(rows);
    return rows.length;
  }

  /**
   * Time first so a partition reads in time order; seq and a random suffix keep two operator
   * actions of the same millisecond (here or on another instance) apart and in write order.
   */
  private freshKey(at: number): string {
    this.seq = (this.seq + 1) % 1_000_000;
    return `${String(at).padStart(15, "0")}-${String(this.seq).padStart(6, "0")}-${Math.random().toString(36).slice(2, 8)}`;
  }

  private entity(
    cluster: string,
    ek: string,
    at: number,
    rowKey: string,
    columns: Record<string, string | number | undefined>,
  ): StoredEntity {
    const entity: StoredEntity = {
      partitionKey: eventPartition(cluster, ek),
      rowKey,
      at,
      eventKey: ek,
    };
    for (const [k, v] of Object.entries(columns))
      if (v !== undefined) entity[k] = typeof v === "string" ? v.slice(0, 30_000) : v;
    return entity;
  }
}
