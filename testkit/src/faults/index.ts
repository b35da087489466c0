import { ConcurrencyConflict, type CountedTable, type Tables } from "@quiesce/functions";

/**
 * Real tables with failures injected at chosen writes (an entity group transaction is one write):
 * before the write (nothing happened) or after it (the write happened, its answer was lost), as a
 * lost race (409/412), an unavailable store (503), a refused request (400), a server error (500),
 * a timeout or a dropped connection (no status). Reads are never failed: a failed read writes
 * nothing.
 */
export type FaultKind =
  | "conflictBefore"
  | "conflictAfter"
  | "unavailableBefore"
  | "unavailableAfter"
  | "badRequestBefore"
  | "serverErrorBefore"
  | "serverErrorAfter"
  | "timeoutBefore"
  | "timeoutAfter"
  | "connectionDropBefore"
  | "connectionDropAfter";

/** Every kind, for properties that try them all. */
export const FAULT_KINDS: readonly FaultKind[] = [
  "conflictBefore",
  "conflictAfter",
  "unavailableBefore",
  "unavailableAfter",
  "badRequestBefore",
  "serverErrorBefore",
  "serverErrorAfter",
  "timeoutBefore",
  "timeoutAfter",
  "connectionDropBefore",
  "connectionDropAfter",
];

type TableName = keyof Tables;

/** Which write fails, and how: asked before every write to any table. */
export interface Faults {
  next(op: string, table: TableName): FaultKind | undefined;
}

/** Faults at chosen write numbers, counted across every table. */
export class FaultPlan implements Faults {
  private writes = 0;
  readonly injected: { write: number; kind: FaultKind; op: string }[] = [];
  constructor(private readonly at: ReadonlyMap<number, FaultKind>) {}

  next(op: string): FaultKind | undefined {
    const n = this.writes++;
    const kind = this.at.get(n);
    if (kind) this.injected.push({ write: n, kind, op });
    return kind;
  }
}

/** One fault at the next write to one table, once armed (a race lost at a chosen moment). */
export class ArmedFault implements Faults {
  private armed: { table: TableName; kind: FaultKind } | null = null;
  readonly injected: { table: TableName; kind: FaultKind; op: string }[] = [];

  arm(table: TableName, kind: FaultKind): void {
    this.armed = { table, kind };
  }

  next(op: string, table: TableName): FaultKind | undefined {
    if (this.armed?.table !== table) return undefined;
    const { kind } = this.armed;
    this.armed = null;
    this.injected.push({ table, kind, op });
    return kind;
  }
}

const WRITES = new Set([
  "insert",
  "replace",
  "remove",
  "removeAll",
  "writeTogether",
  "upsertTogether",
]);

/** What the SDK throws: a RestError with the answer's status, or a code and no status. */
const restError = (message: string, fields: { statusCode?: number; code?: string }) =>
  Object.assign(new Error(message), { name: "RestError", ...fields });

function failure(kind: FaultKind, op: string): Error {
  if (kind.startsWith("conflict")) return new ConcurrencyConflict(`injected at ${op}`);
  if (kind.startsWith("unavailable"))
    return restError(`injected 503 at ${op}`, { statusCode: 503 });
  if (kind.startsWith("badRequest"))
    return restError(`injected 400 at ${op}`, { statusCode: 400, code: "InvalidInput" });
  if (kind.startsWith("serverError"))
    return restError(`injected 500 at ${op}`, { statusCode: 500, code: "InternalError" });
  if (kind.startsWith("timeout"))
    return restError(`injected timeout at ${op}`, { code: "ETIMEDOUT" });
  return restError(`injected connection drop at ${op}`, { code: "ECONNRESET" });
}

export function withFaults(tables: Tables, plan: Faults): Tables {
  const wrap = (t: CountedTable, table: TableName): CountedTable =>
    new Proxy(t, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof prop !== "string" || !WRITES.has(prop) || typeof value !== "function")
          return value;
        return async (...args: unknown[]) => {
          const kind = plan.next(prop, table);
          if (kind?.endsWith("Before")) throw failure(kind, prop);
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (kind?.endsWith("After")) throw failure(kind, prop);
          return result;
        };
      },
    });
  return {
    Members: wrap(tables.Members, "Members"),
    Events: wrap(tables.Events, "Events"),
    Readiness: wrap(tables.Readiness, "Readiness"),
    History: wrap(tables.History, "History"),
    // Not numbered, so a plan's write numbers keep their meaning; an index row written with no
    // event after it is harmless (store/eventIndex.ts, tested in test/integration/eventIndex.test.ts).
    EventIndex: tables.EventIndex,
  };
}
