import { odata } from "@azure/data-tables";
import type { Decision, EventRecord, Member, Transition } from "@quiesce/core";
import { budgetEntity, claimBatches } from "./budget";
import { type StoredEntity, toEntity } from "./codec";
import type { AuditEntry, HistoryLog } from "./history";
import type { IdleMemberCache } from "./idleMemberCache";
import { type JournalEntry, nextJournal, readJournal } from "./journal";
import {
  decodeKey,
  encodeKey,
  eventPartition,
  legacyMemberPartition,
  memberPartition,
} from "./keys";
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

    // Every readiness and event row is encoded before the first write: one that cannot be (a
    // record too large for an entity) fails the commit with nothing written.
    const readiness: { ek: string; mk: string; entity: StoredEntity }[] = [];
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
        readiness.push({ ek, mk, entity });
      }
    }
    // An event entering Approving takes a share of the cluster's maxEventsInFlight budget, a
    // decision made from every other event's row as read: those events are written with the
    // cluster's budget row, all or nothing, under the ETag it had before they were read
    // (budget.ts), so of two elections at once one fails and is decided again.
    const claims = Object.entries(next.events)
      .filter(([ek, ev]) => ev.phase === "Approving" && prev.events[ek]?.phase !== "Approving")
      .map(([ek]) => ek);
    // An event's transitions travel in its row's journal (journal.ts), written with the phase
    // they lead to: the history rows written after can then be lost without losing the moves.
    const moves = new Map<string, Transition[]>();
    for (const t of decision.transitions)
      moves.set(t.eventKey, [...(moves.get(t.eventKey) ?? []), t]);
    const journal = (ek: string) => {
      const read = loaded.journals?.get(ek);
      const own = moves.get(ek);
      if (!own) return read;
      const text = nextJournal(read, own);
      // A decision made again on this load (pipeline/report.ts) starts from what was written.
      if (text !== undefined) {
        loaded.journals ??= new Map();
        loaded.journals.set(ek, text);
      }
      return text;
    };
    const events = new Map(
      Object.keys(next.events)
        .filter((ek) => next.events[ek] !== prev.events[ek] || touched.has(ek) || moves.has(ek))
        .map((ek) => [
          ek,
          eventEntity(cluster, next.events[ek] as EventRecord, opts.ended.has(ek), journal(ek)),
        ]),
    );

    // The rows written, with their new ETags: this instance's copies (reportReadCache.ts).
    const written = new Map<string, Map<string, StoredEntity>>();
    await Promise.all(
      readiness.map(async ({ ek, mk, entity }) => {
        const { etag } = await this.put(loaded, "Readiness", entity);
        const rows = written.get(ek) ?? new Map<string, StoredEntity>();
        written.set(ek, rows.set(mk, { ...entity, etag }));
      }),
    );
    await Promise.all(
      [...events]
        .filter(([ek]) => !claims.includes(ek))
        .map(async ([ek, entity]) => {
          const { before, etag } = await this.put(loaded, "Events", entity);
          this.copies.eventWritten(cluster, ek, before, etag, written.get(ek) ?? new Map());
        }),
    );
    const claimed = claims.map((ek) => events.get(ek)).filter((e) => e !== undefined);
    if (claimed.length > 0) await this.claim(loaded, claimed, written);

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
      // Copies are for reports during events: an idle VM's row would only crowd them out.
      if (m.eventKeys.length > 0)
        this.copies.keepMember(cluster, mk, { row: { ...entity, etag }, legacy: false });
      else this.copies.forgetMember(cluster, mk);
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

    for (const key of decision.forget)
      await this.forgetEvent(cluster, key, readJournal(loaded.journals?.get(key)));
  }

  /**
   * Deletes an event whose retention ran out, readiness rows first; its journal goes into the
   * history first, which keeps the moves whose own history rows were never written.
   */
  async forgetEvent(cluster: string, key: string, journal: JournalEntry[] = []): Promise<void> {
    await this.history.copyJournal(cluster, key, journal);
    const pk = eventPartition(cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`, [
      "PartitionKey",
      "RowKey",
    ]);
    await this.tables.Readiness.removeAll(rows);
    await this.tables.Events.remove(encodeKey(cluster), encodeKey(key));
  }

  /**
   * Events entering Approving, with the cluster's budget row, in one transaction under the ETags
   * they were read with (budget.ts); in several, each with the budget row, when they do not fit
   * one (claimBatches). The load must have read the budget row before the events.
   */
  private async claim(
    loaded: Loaded,
    events: StoredEntity[],
    written: ReadonlyMap<string, ReadonlyMap<string, StoredEntity>>,
  ): Promise<void> {
    const { cluster } = loaded.state;
    if (loaded.budgetEtag === undefined)
      throw new Error("an election must be decided on a load that read the cluster's budget row");
    for (const batch of claimBatches(events)) {
      const before = batch.map((r) =>
        loaded.etags.get(etagKey("Events", r.partitionKey, r.rowKey)),
      );
      const [budgetEtag, ...etags] = await this.tables.Events.writeTogether([
        { entity: budgetEntity(cluster), etag: loaded.budgetEtag ?? undefined },
        ...batch.map((entity, k) => ({ entity, etag: before[k] })),
      ]);
      loaded.budgetEtag = budgetEtag || null;
      batch.forEach((r, k) => {
        const etag = etags[k];
        if (!etag) return;
        loaded.etags.set(etagKey("Events", r.partitionKey, r.rowKey), etag);
        const ek = decodeKey(r.rowKey);
        this.copies.eventWritten(cluster, ek, before[k], etag, written.get(ek) ?? new Map());
      });
    }
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

function eventEntity(
  cluster: string,
  ev: EventRecord,
  ended: boolean,
  journal: string | undefined,
): StoredEntity {
  return toEntity(encodeKey(cluster), encodeKey(ev.key), ev, {
    journal,
    eventId: ev.eventId,
    phase: ev.phase,
    ended,
    endedAt: ev.endedAt ?? undefined,
    // The status API orders active events by it without reading their JSON.
    firstSeenAt: ev.firstSeenAt,
  });
}
