import { odata } from "@azure/data-tables";
import type { PatchRunView } from "@quiesce/core";
import type { PatchRunEvent } from "@quiesce/protocol/published";
import { z } from "zod";
import type { StoreOptions } from "../options";
import { decodeEntity, toEntity } from "../store/codec";
import { encodeKey } from "../store/keys";
import { tableConnection } from "../store/open";
import {
  ConcurrencyConflict,
  CountedTable,
  type TableObserver,
  tableClient,
  zeroCounts,
} from "../store/tables";

/**
 * Update Manager's patch runs, one row per run (PK: its maintenance configuration's id, RK: the
 * run's name, both lower case), as published scheduled events are kept: a record of JSON with a
 * few plain columns to query, every write under its ETag (create: 409, replace: 412, then read
 * and merge again). A delivery merged twice changes nothing: Event Grid's at-least-once,
 * unordered copies of a CorrelationId all land on the same row.
 */

const Cancel = z.object({
  /** claimed: the ARM call is out (or its instance died: retried after CLAIM_MS). */
  state: z.enum(["claimed", "cancelled", "failed", "tooLate"]),
  at: z.number(),
  /** Clusters whose events asked for it. */
  clusters: z.array(z.string()),
  reason: z.string(),
  detail: z.string().nullable(),
  attempts: z.number().int(),
});
export type RunCancel = z.infer<typeof Cancel>;

export const PatchRunRecord = z.object({
  correlationId: z.string(),
  maintenanceConfigurationId: z.string(),
  startAt: z.number(),
  endAt: z.number(),
  cancelCutoffAt: z.number().nullable(),
  subscriptionIds: z.array(z.string()),
  /** When the pre-event first came (null: only the post-event was seen). */
  preAt: z.number().nullable(),
  postAt: z.number().nullable(),
  postStatus: z.string().nullable(),
  cancel: Cancel.nullable(),
});
export type PatchRunRecord = z.infer<typeof PatchRunRecord>;

export const viewOf = (r: PatchRunRecord): PatchRunView => ({
  correlationId: r.correlationId,
  maintenanceConfigurationId: r.maintenanceConfigurationId,
  startAt: r.startAt,
  endAt: r.endAt,
  cancelCutoffAt: r.cancelCutoffAt,
  postAt: r.postAt,
  cancelledAt: r.cancel?.state === "cancelled" ? r.cancel.at : null,
});

/** A delivery merged into what is stored: the same record back when it adds nothing. */
export function mergeRunEvent(
  stored: PatchRunRecord | null,
  e: PatchRunEvent,
  now: number,
): PatchRunRecord {
  const base: PatchRunRecord = stored ?? {
    correlationId: e.correlationId,
    maintenanceConfigurationId: e.maintenanceConfigurationId.toLowerCase(),
    startAt: e.startAt,
    endAt: e.endAt,
    cancelCutoffAt: e.cancelCutoffAt,
    subscriptionIds: e.subscriptionIds,
    preAt: null,
    postAt: null,
    postStatus: null,
    cancel: null,
  };
  if (e.kind === "pre") {
    if (base.preAt !== null) return base;
    return { ...base, cancelCutoffAt: e.cancelCutoffAt, preAt: now };
  }
  if (base.postAt !== null) return base;
  return { ...base, postAt: now, postStatus: e.status };
}

const keysOf = (correlationId: string, configurationId: string) => ({
  pk: encodeKey(configurationId.toLowerCase()),
  rk: encodeKey(correlationId.slice(correlationId.lastIndexOf("/") + 1).toLowerCase()),
});

export class PatchRunTable {
  constructor(private readonly table: CountedTable) {}

  init(): Promise<void> {
    return this.table.create();
  }

  /**
   * Read, change, write under the ETag until it lands: `change` gets the stored record (null:
   * none) and returns the new one, or the same object to write nothing.
   */
  async update(
    correlationId: string,
    configurationId: string,
    change: (stored: PatchRunRecord | null) => PatchRunRecord,
  ): Promise<{ before: PatchRunRecord | null; after: PatchRunRecord }> {
    const { pk, rk } = keysOf(correlationId, configurationId);
    for (let attempt = 0; ; attempt++) {
      const row = await this.table.get(pk, rk);
      const parsed = row ? decodeEntity(PatchRunRecord, row) : null;
      if (parsed && !parsed.ok) throw new Error(`patch run row ${pk}/${rk}: ${parsed.error}`);
      const before = parsed ? parsed.value : null;
      const after = change(before);
      if (after === before && before) return { before, after };
      const entity = toEntity(pk, rk, after, { endAt: after.endAt });
      try {
        if (row?.etag) await this.table.replace(entity, row.etag);
        else await this.table.insert(entity);
        return { before, after };
      } catch (e) {
        if (!(e instanceof ConcurrencyConflict) || attempt >= 8) throw e;
      }
    }
  }

  /** Runs of these configurations not over at `now` (EndDateTime ahead): one partition query each. */
  async current(configurationIds: readonly string[], now: number): Promise<PatchRunRecord[]> {
    const out: PatchRunRecord[] = [];
    for (const id of new Set(configurationIds.map((c) => c.toLowerCase()))) {
      const rows = await this.table.query(
        odata`PartitionKey eq ${encodeKey(id)} and endAt gt ${now}`,
      );
      for (const row of rows) {
        const r = decodeEntity(PatchRunRecord, row);
        if (r.ok) out.push(r.value);
        else this.table.unreadable();
      }
    }
    return out;
  }
}

/** The runs' own table, its own counters (not a report's cost). */
export function openPatchRunTable(options: StoreOptions, observer?: TableObserver): PatchRunTable {
  return new PatchRunTable(
    new CountedTable(
      tableClient(tableConnection(options), `${options.tablePrefix}PatchRuns`),
      zeroCounts(),
      observer,
      "PatchRuns",
    ),
  );
}
