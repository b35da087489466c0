import { ConcurrencyConflict, type CountedTable, type Tables } from "@quiesce/functions";

/**
 * Real tables with failures injected at chosen writes: before the write (nothing happened) or
 * after it (the write happened, its answer was lost), as a lost race (409/412) or an
 * unavailable store (503). Reads are never failed: a failed read writes nothing.
 */
export type FaultKind =
  | "conflictBefore"
  | "conflictAfter"
  | "unavailableBefore"
  | "unavailableAfter";

export class FaultPlan {
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

const WRITES = new Set(["insert", "replace", "remove", "removeAll", "writeTogether"]);

function failure(kind: FaultKind, op: string): Error {
  if (kind.startsWith("conflict")) return new ConcurrencyConflict(`injected at ${op}`);
  // What the SDK throws for a 503: a RestError with a statusCode.
  return Object.assign(new Error(`injected 503 at ${op}`), { name: "RestError", statusCode: 503 });
}

export function withFaults(tables: Tables, plan: FaultPlan): Tables {
  const wrap = (t: CountedTable): CountedTable =>
    new Proxy(t, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof prop !== "string" || !WRITES.has(prop) || typeof value !== "function")
          return value;
        return async (...args: unknown[]) => {
          const kind = plan.next(prop);
          if (kind?.endsWith("Before")) throw failure(kind, prop);
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (kind?.endsWith("After")) throw failure(kind, prop);
          return result;
        };
      },
    });
  return {
    Members: wrap(tables.Members),
    Events: wrap(tables.Events),
    Readiness: wrap(tables.Readiness),
    History: wrap(tables.History),
  };
}
