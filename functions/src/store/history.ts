import { odata } from "@azure/data-tables";
import type { Transition } from "@quiesce/core";
import { z } from "zod";
import type { StoredEntity } from "./codec";
import { eventPartition } from "./keys";
import type { Tables } from "./tables";

/** History: PK cluster|eventKey, RK time-seq-random: transitions and the operator audit. */

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

  /** Insert-only, so a retried report may record a transition twice; readers show both. */
  async append(cluster: string, transitions: Transition[], audit?: AuditEntry): Promise<void> {
    const rows: StoredEntity[] = transitions.map((t) =>
      this.entity(cluster, t.eventKey, t.at, {
        kind: "transition",
        from: t.from ?? undefined,
        to: t.to,
        reason: t.reason,
        vm: t.vm,
      }),
    );
    if (audit)
      rows.push(
        this.entity(cluster, audit.eventKey, audit.at, {
          kind: "operator",
          action: audit.action,
          by: audit.by,
          reason: audit.reason,
          ttlSeconds: audit.ttlSeconds,
        }),
      );
    await Promise.all(rows.map((r) => this.tables.History.insert(r)));
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

  private entity(
    cluster: string,
    ek: string,
    at: number,
    columns: Record<string, string | number | undefined>,
  ): StoredEntity {
    // Time first so a partition reads in time order; seq and a random suffix keep two rows of
    // the same millisecond (here or on another instance) apart and in write order.
    this.seq = (this.seq + 1) % 1_000_000;
    const rk = `${String(at).padStart(15, "0")}-${String(this.seq).padStart(6, "0")}-${Math.random().toString(36).slice(2, 8)}`;
    const entity: StoredEntity = {
      partitionKey: eventPartition(cluster, ek),
      rowKey: rk,
      at,
      eventKey: ek,
    };
    for (const [k, v] of Object.entries(columns))
      if (v !== undefined) entity[k] = typeof v === "string" ? v.slice(0, 30_000) : v;
    return entity;
  }
}
