import type { StoredEntity } from "./codec";
import { encodeKey } from "./keys";
import type { CountedTable } from "./tables";

/**
 * The cluster's budget row: what serialises elections against `maxEventsInFlight`.
 *
 * An election counts the cluster's events in flight and moves one more into `Approving`. Two
 * elections of two events at once must not both pass on the same count. Each election therefore
 * reads this row's ETag **before** it reads the cluster's events, and writes the row together
 * with the events it moves into `Approving`, in one entity group transaction (the row lives in the
 * cluster's Events partition for that): all or nothing. An election that landed after this one
 * read the row changed it, so this one's transaction fails and the report is decided again on
 * fresh rows; one that landed before is in the events this one read. The row holds nothing else:
 * its ETag is the point.
 *
 * Before this row, an election rewrote every event of the cluster not ended, under their ETags:
 * correct, but every drain finishing in any other group then failed the election (or the
 * election failed it), and a wave of 20 events in one cluster approved 7 in 90 s (bench (i)).
 * A coordinator of that release running beside this one during a rolling upgrade still rewrites
 * every event, the claiming one included, so of two elections at once one fails either way. It
 * reads this row as an event row that does not parse, with `ended` true: quarantined, holding no
 * budget (the status API lists it as unreadable until the upgrade is done).
 */

/** Its row key: `%b…` is never what encodeKey makes of an event key (it escapes `%` as `%25`). */
export const BUDGET_ROW_KEY = "%budget";

export const isBudgetRow = (row: { rowKey: string }): boolean => row.rowKey === BUDGET_ROW_KEY;

export function budgetEntity(cluster: string): StoredEntity {
  return { partitionKey: encodeKey(cluster), rowKey: BUDGET_ROW_KEY, ended: true };
}

/** The row's ETag, or null when no election has written it yet. */
export async function readBudgetEtag(
  events: CountedTable,
  cluster: string,
): Promise<string | null> {
  const row = await events.get(encodeKey(cluster), BUDGET_ROW_KEY);
  return row ? (row.etag ?? null) : null;
}

/**
 * An entity group transaction holds at most 100 operations and 4 MiB (Table Storage's limits,
 * "Performing entity group transactions"). One decision can move more events into `Approving`
 * than one transaction holds (a document has up to 100 events, `maxEventsInFlight` goes to
 * 1,000, an event row up to about 900 KB): they are claimed in several transactions, each with
 * the budget row under the ETag the previous one left. A failure between two leaves the first
 * ones' events in `Approving`: fewer in flight than the decision counted, so still within the
 * budget, and read back as in flight by the attempt that decides the rest again.
 */
export const MAX_CLAIM_OPERATIONS = 99; // and the budget row
const MAX_CLAIM_BYTES = 4 * 1024 * 1024 - 256 * 1024; // room for the budget row and the framing
/** A sub-request's headers and multipart framing, generously. */
const OPERATION_OVERHEAD_BYTES = 2048;

export function claimBatches<T extends StoredEntity>(events: readonly T[]): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
  let bytes = 0;
  for (const e of events) {
    const size = Buffer.byteLength(JSON.stringify(e)) + OPERATION_OVERHEAD_BYTES;
    if (
      batch.length > 0 &&
      (batch.length >= MAX_CLAIM_OPERATIONS || bytes + size > MAX_CLAIM_BYTES)
    ) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(e);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
