import { odata } from "@azure/data-tables";
import type { Member, Readiness, UnreadableEvent } from "@quiesce/core";
import { type Dict, dict, type Result } from "@quiesce/protocol";
import type { z } from "zod";
import type { StoredEntity } from "./codec";
import type { IdleMemberCache } from "./idleMemberCache";
import {
  decodeKey,
  encodeKey,
  eventPartition,
  legacyMemberPartition,
  memberPartition,
} from "./keys";
import { etagKey, type Loaded, noteCopy, rememberEtag } from "./loaded";
import type { MemberRow, MemberRows } from "./memberRows";
import type { ReportReadCache } from "./reportReadCache";
import { decodeRow, eventOfRow, StoredEvent, StoredMember, StoredReadiness } from "./rows";
import type { CountedTable, Tables } from "./tables";

/**
 * Reads rows into a load (stateReader.ts says which): each row parsed by its schema, its ETag
 * kept for the commit, an unreadable one set aside as the core expects; other VMs' rows taken
 * from this instance's copies where the caller allows it (reportReadCache.ts).
 */
export class RowReader {
  /**
   * What a row parsed to, by the row object: a copy (reportReadCache.ts) is the same object for
   * every report that takes it, and parsing it again each time was a tenth of a report's CPU.
   * The values are shared between loads as the idle members' are: the core never mutates state.
   */
  private readonly parsed = new WeakMap<StoredEntity, Member | Readiness>();

  constructor(
    private readonly tables: Tables,
    private readonly idleMembers: IdleMemberCache,
    private readonly memberRows: MemberRows,
    private readonly copies: ReportReadCache,
  ) {}

  /** `cached`: another VM's row, which may be this instance's copy (reportReadCache.ts). */
  async readMember(loaded: Loaded, mk: string, cached = false): Promise<Member | undefined> {
    const { cluster } = loaded.state;
    const copy = cached ? this.copies.member(cluster, mk) : undefined;
    if (copy !== undefined) {
      noteCopy(loaded, { table: "Members", mk });
      return copy ? this.addMember(loaded, mk, copy, false) : undefined;
    }
    const found = await this.memberRows.get(cluster, mk);
    const member = found ? this.addMember(loaded, mk, found, true) : undefined;
    // Copies are for reports during events: an idle VM's row would only crowd them out.
    if (!found || (member?.eventKeys.length ?? 0) > 0) this.copies.keepMember(cluster, mk, found);
    return member;
  }

  async readAllMembers(loaded: Loaded): Promise<void> {
    for (const found of await this.memberRows.query(loaded.state.cluster))
      this.addMember(loaded, decodeKey(found.row.rowKey), found, false);
  }

  /** `remember`: a point read, whose row the idle-member copies may keep (idleMemberCache.ts). */
  private addMember(
    loaded: Loaded,
    mk: string,
    { row, legacy }: MemberRow,
    remember: boolean,
  ): Member | undefined {
    const { cluster } = loaded.state;
    // Unreadable: left out (ClusterState.unreadableMembers: no live relay), its ETag kept so the
    // VM's own next report replaces the row instead of failing to create it (409) forever.
    rememberEtag(loaded, "Members", row);
    if (legacy) {
      loaded.legacyMembers ??= new Set();
      loaded.legacyMembers.add(mk);
    }
    const member = this.parse(this.tables.Members, StoredMember, row);
    if (!member.ok) {
      if (remember) this.idleMembers.forget(cluster, mk);
      unreadableMember(loaded, mk, member.error);
      return undefined;
    }
    loaded.state.members[mk] = member.value;
    if (remember && row.etag && !legacy)
      this.idleMembers.remember(cluster, mk, member.value, row.etag);
    return member.value;
  }

  /**
   * Point reads of some rows of an event's partition (those absent are simply not there); with
   * `cached`, copies kept for the event row's ETag this load read (reportReadCache.ts).
   */
  async readReadinessRows(
    loaded: Loaded,
    key: string,
    mks: string[],
    cached: boolean,
  ): Promise<void> {
    const byMember = dict<Readiness>();
    loaded.state.readiness[key] = byMember;
    await Promise.all(mks.map((mk) => this.readReadinessRow(loaded, key, mk, cached)));
  }

  private async readReadinessRow(loaded: Loaded, key: string, mk: string, cached: boolean) {
    const { cluster } = loaded.state;
    const version = loaded.etags.get(etagKey("Events", encodeKey(cluster), encodeKey(key)));
    let row = cached && version ? this.copies.readiness(cluster, key, version, mk) : undefined;
    if (row !== undefined) noteCopy(loaded, { table: "Readiness", eventKey: key, mk });
    else {
      row = await this.tables.Readiness.get(eventPartition(cluster, key), encodeKey(mk));
      if (version) this.copies.keepReadiness(cluster, key, version, mk, row);
    }
    const byMember = loaded.state.readiness[key];
    if (row && byMember) this.addReadiness(loaded, byMember, mk, row);
  }

  /**
   * Reads afresh, in place, the rows a load took from this instance's copies (`Loaded.copies`):
   * a report whose decision on them would write is decided again on what storage holds.
   */
  async refreshCopies(loaded: Loaded): Promise<void> {
    const { cluster, members, readiness } = loaded.state;
    const copies = loaded.copies ?? [];
    loaded.copies = undefined;
    await Promise.all(
      copies.map((c) => {
        if (c.table === "Readiness") {
          Reflect.deleteProperty(readiness[c.eventKey] ?? {}, c.mk);
          loaded.etags.delete(
            etagKey("Readiness", eventPartition(cluster, c.eventKey), encodeKey(c.mk)),
          );
          return this.readReadinessRow(loaded, c.eventKey, c.mk, false);
        }
        Reflect.deleteProperty(members, c.mk);
        Reflect.deleteProperty(loaded.state.unreadableMembers ?? {}, c.mk);
        loaded.legacyMembers?.delete(c.mk);
        for (const pk of [memberPartition(cluster, c.mk), legacyMemberPartition(cluster)])
          loaded.etags.delete(etagKey("Members", pk, encodeKey(c.mk)));
        return this.readMember(loaded, c.mk);
      }),
    );
  }

  async readReadiness(loaded: Loaded, key: string): Promise<void> {
    const pk = eventPartition(loaded.state.cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`);
    const byMember = dict<Readiness>();
    for (const row of rows) this.addReadiness(loaded, byMember, decodeKey(row.rowKey), row);
    loaded.state.readiness[key] = byMember;
  }

  /**
   * An event row that does not parse is quarantined (ClusterState.unreadableEvents): the core
   * must neither rebuild it from one report (losing its lease, hold and Resources guard) nor
   * approve it. Its `ended` column, a plain one, says whether it still holds budget.
   */
  addEvent(loaded: Loaded, row: StoredEntity): void {
    rememberEtag(loaded, "Events", row);
    const ev = decodeRow(this.tables.Events, StoredEvent, row, eventOfRow(row));
    if (ev.ok) {
      loaded.state.events[ev.value.key] = ev.value;
      if (typeof row.journal === "string") {
        loaded.journals ??= new Map();
        loaded.journals.set(ev.value.key, row.journal);
      }
      return;
    }
    loaded.state.unreadableEvents ??= dict<UnreadableEvent>();
    loaded.state.unreadableEvents[decodeKey(row.rowKey)] = {
      ended: row.ended === true,
      problem: ev.error,
    };
  }

  /**
   * A readiness row that does not parse is left out: that VM is not confirmed drained (it blocks
   * approval), and its ETag is kept so the VM's own next report replaces the row.
   */
  private addReadiness(
    loaded: Loaded,
    byMember: Dict<Readiness>,
    mk: string,
    row: StoredEntity,
  ): void {
    rememberEtag(loaded, "Readiness", row);
    const r = this.parse(this.tables.Readiness, StoredReadiness, row);
    if (r.ok) byMember[mk] = r.value;
  }

  /** A row through its schema, once per row object (a failure is parsed, and counted, again). */
  private parse<T extends Member | Readiness>(
    table: CountedTable,
    schema: z.ZodType<T>,
    row: StoredEntity,
  ): Result<T> {
    const hit = this.parsed.get(row);
    if (hit !== undefined) return { ok: true, value: hit as T };
    const r: Result<T> = decodeRow(table, schema, row);
    if (r.ok) this.parsed.set(row, r.value);
    return r;
  }
}

function unreadableMember(loaded: Loaded, mk: string, problem: string): void {
  loaded.state.unreadableMembers ??= dict<string>();
  loaded.state.unreadableMembers[mk] = problem;
}
