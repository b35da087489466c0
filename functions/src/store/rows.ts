import { AsyncLocalStorage } from "node:async_hooks";
import { EventRecord, Member, Readiness } from "@quiesce/core";
import { parseWith, type Result } from "@quiesce/protocol";
import type { z } from "zod";
import { decodeEntity, type StoredEntity } from "./codec";
import { decodeKey } from "./keys";
import type { CountedTable } from "./tables";

/**
 * Stored rows are parsed, not trusted: every row read back goes through its schema (the core's
 * for members, events and readiness; history.ts and notify/outbox.ts for theirs). A row that does
 * not parse is never a 500 and never used as if it did: the reader leaves it out (and says what
 * that means: stateReader.ts, docs/coordinator.md "Unreadable rows"), the table's observer
 * counts it (metric quiesce.store.unreadable_rows, by table), and a status answer in progress
 * lists it (`collectUnreadable`).
 *
 * Read loosely at the top level: fields a newer coordinator adds to a row survive an older
 * instance's rewrite of it during a rolling upgrade, as they did before rows were parsed.
 */
export const StoredMember = Member.loose();
export const StoredEvent = EventRecord.loose();
export const StoredReadiness = Readiness.loose();

/** A row that does not parse, as the status API lists it. */
export interface UnreadableRow {
  table: string;
  partitionKey: string;
  rowKey: string;
  /** The schema's complaint, one line naming the field. */
  problem: string;
}

/** At most this many are listed in one answer (the metric counts them all). */
export const MAX_LISTED_UNREADABLE = 50;

const listening = new AsyncLocalStorage<Map<string, UnreadableRow>>();

/** Runs `fn`, returning what it returned and the rows it met that do not parse (each once). */
export async function collectUnreadable<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; unreadable: UnreadableRow[] }> {
  const seen = new Map<string, UnreadableRow>();
  const value = await listening.run(seen, fn);
  return { value, unreadable: [...seen.values()].slice(0, MAX_LISTED_UNREADABLE) };
}

/** `body` with `unreadableRows` added when some rows did not parse (absent otherwise). */
export function withUnreadableRows<T extends object>(
  body: T,
  unreadable: UnreadableRow[],
): T & { unreadableRows?: UnreadableRow[] } {
  return unreadable.length > 0 ? { ...body, unreadableRows: unreadable } : body;
}

/**
 * A record stored as JSON in d0..dN (codec.ts), through its schema; `consistent` may add a
 * complaint the schema cannot make (a record that is not the row's, e.g. another event's key).
 */
export function decodeRow<S extends z.ZodType>(
  table: CountedTable,
  schema: S,
  row: StoredEntity,
  consistent?: (value: z.output<S>) => string | null,
): Result<z.output<S>> {
  const decoded = decodeEntity(schema, row);
  const complaint = decoded.ok && consistent ? consistent(decoded.value) : null;
  return checked(table, row, complaint === null ? decoded : { ok: false, error: complaint });
}

/** An event record is the row's own: its key is the row's key (decoded). */
export const eventOfRow =
  (row: StoredEntity) =>
  (e: { key: string }): string | null =>
    e.key === decodeKey(row.rowKey) ? null : `key: ${e.key.slice(0, 80)} is not this row's`;

/** A row's plain columns (history, the outbox's state, an event's head), through a schema. */
export function parseColumns<S extends z.ZodType>(
  table: CountedTable,
  schema: S,
  row: StoredEntity,
): Result<z.output<S>> {
  return checked(table, row, parseWith(schema, row));
}

function checked<T>(table: CountedTable, row: StoredEntity, parsed: Result<T>): Result<T> {
  if (parsed.ok) return parsed;
  table.unreadable();
  const seen = listening.getStore();
  if (seen) {
    const id = `${table.label}|${row.partitionKey}|${row.rowKey}`;
    if (!seen.has(id))
      seen.set(id, {
        table: table.label,
        partitionKey: row.partitionKey,
        rowKey: row.rowKey,
        problem: parsed.error.slice(0, 512),
      });
  }
  return parsed;
}
