import { type ClusterState, emptyClusterState } from "@quiesce/core";
import type { StoredEntity } from "./codec";
import type { TableName } from "./tables";

/**
 * What a load hands the core, and what a commit needs back: the state, plus the ETag of every
 * row read (or written since), so each write is conditional on the row being as it was read.
 */
export interface Loaded {
  state: ClusterState;
  etags: Map<string, string>;
  /**
   * Only the round's own events were read, not the cluster's others (stateReader.ts): enough
   * unless the decision may elect an approver, which counts the events in flight
   * (`needsClusterEvents`). False once every event of the cluster is read; absent on an empty
   * load (which holds no event to decide).
   */
  onlyItsEvents?: boolean;
  /**
   * Members read from the partition of releases before the buckets (memberRows.ts): writing one
   * moves it into its bucket.
   */
  legacyMembers?: Set<string>;
  /**
   * Other VMs' rows this load took from the instance's copies (reportReadCache.ts): a decision on
   * it may be answered only if it changes nothing; one that writes is decided again once these
   * rows are read afresh (`StateReader.refreshCopies`, pipeline/report.ts).
   */
  copies?: Copy[];
  /**
   * The ETag of the cluster's budget row (budget.ts), read before the cluster's events; null when
   * there is none yet; undefined when this load did not read it (then it cannot elect).
   */
  budgetEtag?: string | null;
  /**
   * The `journal` column of each event row read (journal.ts): carried into the row's next write,
   * and copied into the history when the event is forgotten.
   */
  journals?: Map<string, string>;
}

export type Copy =
  | { table: "Readiness"; eventKey: string; mk: string }
  | { table: "Members"; mk: string };

export const emptyLoaded = (cluster: string): Loaded => ({
  state: emptyClusterState(cluster),
  etags: new Map(),
});

export const etagKey = (table: TableName, pk: string, rk: string) => `${table}|${pk}|${rk}`;

export function rememberEtag(loaded: Loaded, table: TableName, row: StoredEntity): void {
  if (row.etag) loaded.etags.set(etagKey(table, row.partitionKey, row.rowKey), row.etag);
}

/** A row taken from this instance's copies (reportReadCache.ts) rather than read. */
export function noteCopy(loaded: Loaded, copy: Copy): void {
  loaded.copies ??= [];
  loaded.copies.push(copy);
}
