import { odata } from "@azure/data-tables";
import type { Decision, EventRecord, Member } from "@quiesce/core";
import { type StoredEntity, toEntity } from "./codec";
import type { AuditEntry, HistoryLog } from "./history";
import type { IdleMemberCache } from "./idleMemberCache";
import { encodeKey, eventPartition, legacyMemberPartition, memberPartition } from "./keys";
import { etagKey, type Loaded } from "./loaded";
import type { ReportReadCache } from "./reportReadCache";
import type { TableName, Tables } from "./tables";

/**
 * Writes a decision: exactly the rows whose object identity the core changed, each guarded by the
 * ETag it was read with (or created with create-or-409 when it was not there).
 */
export class DecisionWriter {
  constructor(
    private readonly tables: Tables,
    private readonly idleMembers: IdleMemberCache,
    private readonly history: HistoryLog,
    private readonly copies: ReportReadCache,
  ) {}

  /**
   * Order matters for retries: readiness rows, then events (an event whose readiness changed is
   * rewritten even if unchanged, so concurrent readiness changes of one event serialise on its
   * ETag and the last writer decides with every row), then history, then members, the reporter
   * last: until its row is written, a retry of the same report re-applies from the start and
   * reaches the same result. Throws ConcurrencyConflict on 412/409; what was written before
   * stays written and is read back by the next attempt (stateReader.ts). `ended` names the
   * decided state's ended events, as the caller judged them: the `ended` column, and the events
   * an election leaves alone.
   */
  async commit(
    loaded: Loaded,
    decision: Decision,
    opts: { reporter?: string; audit?: AuditEntry; ended: ReadonlySet<string> },
  ): Promise<void> {
    const prev = loaded.state;
    const next = decision.state;
    const cluster = prev.cluster;
    const touched = new Set<string>();

    const readinessWrites: Promise<unknown>[] = [];
    // The rows written, with their new ETags: this instance's copies (reportReadCache.ts).
    const written = new Map<string, Map<string, StoredEntity>>();
    for (const [ek, rows] of Object.entries(next.readiness)) {
      const before = prev.readiness[ek];
      if (rows === before) continue;
      for (const [mk, row] of Object.entries(rows)) {
        if (before && row === before[mk]) continue;
        touched.add(ek);
        const pk = eventPartition(cluster, ek);
        const entity = toEntity(pk, encodeKey(mk), row, {
          vm: row.vmName,
          updatedAt: row.updatedAt,
        });
        readinessWrites.push(
          this.put(loaded, "Readiness", entity).then(({ etag }) => {
            const rows = written.get(ek) ?? new Map<string, StoredEntity>();
            written.set(ek, rows.set(mk, { ...entity, etag }));
          }),
        );
      }
    }
    await Promise.all(readinessWrites);

    // An event entering Approving takes a share of the cluster's maxEventsInFlight budget, a
    // decision made from every other event's row as read. Those rows are rewritten under their
    // ETags first, and the approving event only after: of two reports electing approvers for
    // two events at once, at least one finds a row changed and re-decides with the other lease.
    const claims = Object.entries(next.events)
      .filter(([ek, ev]) => ev.phase === "Approving" && prev.events[ek]?.phase !== "Approving")
      .map(([ek]) => ek);
    if (claims.length > 0)
      for (const ek of Object.keys(next.events)) if (!opts.ended.has(ek)) touched.add(ek);
    const writeEvents = (keys: string[]) =>
      Promise.all(
        keys.map(async (ek) => {
          const entity = eventEntity(cluster, next.events[ek] as EventRecord, opts.ended.has(ek));
          const { before, etag } = await this.put(loaded, "Events", entity);
          this.copies.eventWritten(cluster, ek, before, etag, written.get(ek) ?? new Map());
        }),
      );
    const changedEvents = Object.keys(next.events).filter(
      (ek) => next.events[ek] !== prev.events[ek] || touched.has(ek),
    );
    await writeEvents(changedEvents.filter((ek) => !claims.includes(ek)));
    await writeEvents(claims);

    await this.history.append(cluster, decision.transitions, opts.audit);

    const reporterRow = opts.reporter;
    const memberWrite = async (mk: string, m: Member) => {
      const entity = toEntity(memberPartition(cluster, mk), encodeKey(mk), m, {
        vm: m.vmName,
        lastSeenAt: m.lastSeenAt,
      });
      let etag: string;
      try {
        ({ etag } = await this.put(loaded, "Members", entity));
        // Read from the partition of an earlier release: now in its bucket, the old row goes
        // (under its ETag: one an older instance rewrote meanwhile stays for the migration,
        // which keeps the newer of the two).
        if (loaded.legacyMembers?.delete(mk)) {
          const old = etagKey("Members", legacyMemberPartition(cluster), encodeKey(mk));
          await this.tables.Members.remove(
            legacyMemberPartition(cluster),
            encodeKey(mk),
            loaded.etags.get(old),
          );
        }
      } catch (e) {
        // A conflict means another instance wrote: forget what this one remembers of it.
        this.idleMembers.forget(cluster, mk);
        this.copies.forgetMember(cluster, mk);
        throw e;
      }
      this.idleMembers.remember(cluster, mk, m, etag);
      this.copies.keepMember(cluster, mk, { row: { ...entity, etag }, legacy: false });
    };
    await Promise.all(
      Object.entries(next.members)
        .filter(([mk, m]) => mk !== reporterRow && m !== prev.members[mk])
        .map(([mk, m]) => memberWrite(mk, m)),
    );
    if (reporterRow) {
      const m = next.members[reporterRow];
      if (m && m !== prev.members[reporterRow]) await memberWrite(reporterRow, m);
    }

    for (const key of decision.forget) await this.forgetEvent(cluster, key);
  }

  /** Deletes an event whose retention ran out, readiness rows first. */
  async forgetEvent(cluster: string, key: string): Promise<void> {
    const pk = eventPartition(cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`, [
      "PartitionKey",
      "RowKey",
    ]);
    await this.tables.Readiness.removeAll(rows);
    await this.tables.Events.remove(encodeKey(cluster), encodeKey(key));
  }

  /** Writes a row under the ETag it was read with: the ETag before (none: created) and after. */
  private async put(
    loaded: Loaded,
    table: TableName,
    entity: StoredEntity,
  ): Promise<{ before: string | undefined; etag: string }> {
    const t = etagKey(table, entity.partitionKey, entity.rowKey);
    const before = loaded.etags.get(t);
    const etag = before
      ? await this.tables[table].replace(entity, before)
      : await this.tables[table].insert(entity);
    loaded.etags.set(t, etag);
    return { before, etag };
  }
}

function eventEntity(cluster: string, ev: EventRecord, ended: boolean): StoredEntity {
  return toEntity(encodeKey(cluster), encodeKey(ev.key), ev, {
    eventId: ev.eventId,
    phase: ev.phase,
    ended,
    endedAt: ev.endedAt ?? undefined,
    // The status API orders active events by it without reading their JSON.
    firstSeenAt: ev.firstSeenAt,
  });
}
