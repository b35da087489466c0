import { odata } from "@azure/data-tables";
import {
  type ClusterState,
  type Decision,
  dict,
  type EventRecord,
  emptyClusterState,
  eventKey,
  type Member,
  memberKey,
  type Readiness,
  type RelayReport,
  type Transition,
} from "@quiesce/shared";
import { fromEntity, type StoredEntity, toEntity } from "./codec";
import { type CachedMember, IdleMemberCache } from "./idleMemberCache";
import { decodeKey, encodeKey, eventPartition } from "./keys";
import type { OpCounts, TableName, Tables } from "./tables";

/**
 * The coordinator's state in four tables:
 * - Members:   PK cluster, RK memberKey(vmName)             one row per relay's VM
 * - Events:    PK cluster, RK eventKey(EventId)             one row per event
 * - Readiness: PK cluster|eventKey, RK memberKey            one VM's view of one event
 * - History:   PK cluster|eventKey, RK time-seq-random      transitions and operator audit
 * Keys are escaped by `encodeKey`; records are JSON in d0..dN (see codec.ts).
 *
 * What a load returns is a ClusterState plus the ETag of every row read; `commit` writes
 * exactly the rows whose object identity changed (the core's contract), each guarded by the
 * ETag it was read with, or created with create-or-409 when it was not there.
 */

/** A member's VMs named by this many events or fewer are point-read; more reads the partition. */
const POINT_READ_LIMIT = 16;

export interface Loaded {
  state: ClusterState;
  etags: Map<string, string>;
}

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

const tag = (table: TableName, pk: string, rk: string) => `${table}|${pk}|${rk}`;
const ended = (e: EventRecord) => e.endedAt !== null;

export class ClusterStore {
  private historySeq = 0;
  /** Bounded by entries, bytes and age: see idleMemberCache.ts. */
  private readonly idleMembers = new IdleMemberCache(() => Date.now());

  constructor(
    /** Read by the status queries (statusQueries.ts), which never write. */
    readonly tables: Tables,
    private readonly totals: OpCounts,
  ) {}

  async init(): Promise<void> {
    await Promise.all(Object.values(this.tables).map((t) => t.create()));
  }

  stats(): OpCounts {
    return { ...this.totals };
  }

  // ---------------------------------------------------------------- loading

  /**
   * Loads what a report concerns. An idle heartbeat (no events in its document, no hooks, no
   * approvals, and the stored member has no events) costs one point read. Otherwise the
   * cluster's events partition, the readiness of every active event (plus any the report
   * names), and the members those events name: every event handed to the core is complete.
   */
  async loadForReport(report: RelayReport): Promise<Loaded> {
    const cluster = report.cluster;
    const loaded = this.empty(cluster);
    const mk = memberKey(report.vm.name);
    const idleReport =
      (report.document?.Events.length ?? 0) === 0 &&
      report.hooks.length === 0 &&
      report.approvals.length === 0;
    const cached = idleReport ? this.cachedIdleMember(cluster, mk) : undefined;
    if (cached) {
      loaded.state.members[mk] = cached.member;
      loaded.etags.set(tag("Members", encodeKey(cluster), encodeKey(mk)), cached.etag);
      return loaded;
    }
    const member = await this.readMember(loaded, cluster, mk);
    const reportKeys = new Set<string>([
      ...(report.document?.Events ?? []).map((e) => eventKey(e.EventId)),
      ...report.hooks.map((h) => eventKey(h.eventId)),
      ...report.approvals.map((a) => eventKey(a.eventId)),
      ...(member?.eventKeys ?? []),
    ]);
    if (reportKeys.size === 0) return loaded;
    const names = new Set<string>([mk]);
    for (const ev of report.document?.Events ?? [])
      for (const r of ev.Resources) names.add(memberKey(r));
    // The core re-decides only the events the report concerns: their readiness and members are
    // loaded; the cluster's other events come along only for the budget of events in flight.
    await this.loadActive(loaded, reportKeys, names, { readinessOnlyFor: reportKeys });
    return loaded;
  }

  /** Everything the core needs to act on the cluster's events: for ticks and operator actions. */
  async loadCluster(cluster: string, alsoEvents: Iterable<string> = []): Promise<Loaded> {
    const loaded = this.empty(cluster);
    await this.loadActive(loaded, new Set(alsoEvents), new Set(), { allMembers: true });
    return loaded;
  }

  private empty(cluster: string): Loaded {
    return {
      state: emptyClusterState(cluster),
      etags: new Map(),
    };
  }

  private async loadActive(
    loaded: Loaded,
    keys: Set<string>,
    names: Set<string>,
    opts: { allMembers?: boolean; readinessOnlyFor?: ReadonlySet<string> } = {},
  ): Promise<void> {
    const { cluster } = loaded.state;
    const pk = encodeKey(cluster);
    const rows = await this.tables.Events.query(odata`PartitionKey eq ${pk}`);
    for (const row of rows) {
      const ev = fromEntity<EventRecord>(row);
      loaded.state.events[ev.key] = ev;
      this.remember(loaded, "Events", row);
    }
    const only = opts.readinessOnlyFor;
    // A report's own events are read even without an event row: an attempt that failed after
    // writing readiness but before the event (a lost race, a 5xx, a crash) left rows the next
    // attempt must see and replace under their ETags, or it would try to create them forever.
    const readinessKeys = only
      ? [...only]
      : Object.values(loaded.state.events)
          .filter((e) => !ended(e) || keys.has(e.key))
          .map((e) => e.key);
    for (const key of readinessKeys) {
      const ev = loaded.state.events[key];
      if (ev && !ended(ev)) for (const r of ev.resources) names.add(memberKey(r));
    }
    const wantMembers = [...names].filter((n) => !loaded.state.members[n]);
    await Promise.all([
      ...readinessKeys.map((k) => this.readReadiness(loaded, k)),
      opts.allMembers || wantMembers.length > POINT_READ_LIMIT
        ? this.readAllMembers(loaded)
        : Promise.all(wantMembers.map((n) => this.readMember(loaded, cluster, n))),
    ]);
  }

  private remember(loaded: Loaded, table: TableName, row: StoredEntity): void {
    if (row.etag) loaded.etags.set(tag(table, row.partitionKey, row.rowKey), row.etag);
  }

  private async readMember(
    loaded: Loaded,
    cluster: string,
    mk: string,
  ): Promise<Member | undefined> {
    const row = await this.tables.Members.get(encodeKey(cluster), encodeKey(mk));
    if (!row) return undefined;
    const member = fromEntity<Member>(row);
    loaded.state.members[mk] = member;
    this.remember(loaded, "Members", row);
    if (row.etag) this.cacheMember(cluster, mk, member, row.etag);
    return member;
  }

  private cachedIdleMember(cluster: string, mk: string): CachedMember | undefined {
    return this.idleMembers.get(cluster, mk);
  }

  /** Remembers a member row as this instance last saw it, if it is idle (no events). */
  private cacheMember(cluster: string, mk: string, member: Member, etag: string): void {
    this.idleMembers.remember(cluster, mk, member, etag);
  }

  /** A conflict means another instance wrote: forget what this one remembers of that member. */
  forgetCachedMember(cluster: string, mk: string): void {
    this.idleMembers.forget(cluster, mk);
  }

  private async readAllMembers(loaded: Loaded): Promise<void> {
    const pk = encodeKey(loaded.state.cluster);
    for (const row of await this.tables.Members.query(odata`PartitionKey eq ${pk}`)) {
      loaded.state.members[decodeKey(row.rowKey)] = fromEntity<Member>(row);
      this.remember(loaded, "Members", row);
    }
  }

  private async readReadiness(loaded: Loaded, key: string): Promise<void> {
    const pk = eventPartition(loaded.state.cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`);
    const byMember = dict<Readiness>();
    for (const row of rows) {
      byMember[decodeKey(row.rowKey)] = fromEntity<Readiness>(row);
      this.remember(loaded, "Readiness", row);
    }
    loaded.state.readiness[key] = byMember;
  }

  // ---------------------------------------------------------------- writing

  /**
   * Writes what the decision changed. Order matters for retries: readiness rows, then events
   * (an event whose readiness changed is rewritten even if unchanged, so concurrent readiness
   * changes of one event serialise on its ETag and the last writer decides with every row),
   * then history, then members, the reporter last: until its row is written, a retry of the
   * same report re-applies from the start and reaches the same result.
   * Throws ConcurrencyConflict on 412/409; what was written before stays written (idempotent).
   */
  async commit(
    loaded: Loaded,
    decision: Decision,
    opts: { reporter?: string; audit?: AuditEntry } = {},
  ): Promise<void> {
    const prev = loaded.state;
    const next = decision.state;
    const cluster = prev.cluster;
    const touched = new Set<string>();

    const readinessWrites: Promise<unknown>[] = [];
    for (const [ek, rows] of Object.entries(next.readiness)) {
      const before = prev.readiness[ek] ?? {};
      if (rows === before) continue;
      for (const [mk, row] of Object.entries(rows)) {
        if (row === before[mk]) continue;
        touched.add(ek);
        const pk = eventPartition(cluster, ek);
        readinessWrites.push(
          this.put(
            loaded,
            "Readiness",
            toEntity(pk, encodeKey(mk), row, { vm: row.vmName, updatedAt: row.updatedAt }),
          ),
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
      for (const [ek, ev] of Object.entries(next.events)) if (!ended(ev)) touched.add(ek);
    const writeEvents = (keys: string[]) =>
      Promise.all(
        keys.map((ek) =>
          this.put(loaded, "Events", this.eventEntity(cluster, next.events[ek] as EventRecord)),
        ),
      );
    const changedEvents = Object.keys(next.events).filter(
      (ek) => next.events[ek] !== prev.events[ek] || touched.has(ek),
    );
    await writeEvents(changedEvents.filter((ek) => !claims.includes(ek)));
    await writeEvents(claims);

    await this.appendHistory(cluster, decision.transitions, opts.audit);

    const reporterRow = opts.reporter;
    const memberWrite = async (mk: string, m: Member) => {
      const entity = toEntity(encodeKey(cluster), encodeKey(mk), m, {
        vm: m.vmName,
        lastSeenAt: m.lastSeenAt,
      });
      try {
        await this.put(loaded, "Members", entity);
      } catch (e) {
        this.forgetCachedMember(cluster, mk);
        throw e;
      }
      const etag = loaded.etags.get(tag("Members", entity.partitionKey, entity.rowKey));
      if (etag) this.cacheMember(cluster, mk, m, etag);
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

  private eventEntity(cluster: string, ev: EventRecord): StoredEntity {
    return toEntity(encodeKey(cluster), encodeKey(ev.key), ev, {
      eventId: ev.eventId,
      phase: ev.phase,
      ended: ended(ev),
      endedAt: ev.endedAt ?? undefined,
      // The status API orders active events by it without reading their JSON.
      firstSeenAt: ev.firstSeenAt,
    });
  }

  private async put(loaded: Loaded, table: TableName, entity: StoredEntity): Promise<void> {
    const t = tag(table, entity.partitionKey, entity.rowKey);
    const etag = loaded.etags.get(t);
    const fresh = etag
      ? await this.tables[table].replace(entity, etag)
      : await this.tables[table].insert(entity);
    loaded.etags.set(t, fresh);
  }

  private async appendHistory(
    cluster: string,
    transitions: Transition[],
    audit?: AuditEntry,
  ): Promise<void> {
    const rows: StoredEntity[] = transitions.map((t) =>
      this.historyEntity(cluster, t.eventKey, t.at, {
        kind: "transition",
        from: t.from ?? undefined,
        to: t.to,
        reason: t.reason,
        vm: t.vm,
      }),
    );
    if (audit)
      rows.push(
        this.historyEntity(cluster, audit.eventKey, audit.at, {
          kind: "operator",
          action: audit.action,
          by: audit.by,
          reason: audit.reason,
          ttlSeconds: audit.ttlSeconds,
        }),
      );
    await Promise.all(rows.map((r) => this.tables.History.insert(r)));
  }

  private historyEntity(
    cluster: string,
    ek: string,
    at: number,
    columns: Record<string, string | number | undefined>,
  ): StoredEntity {
    // Time first so a partition reads in time order; seq and a random suffix keep two rows of
    // the same millisecond (here or on another instance) apart and in write order.
    this.historySeq = (this.historySeq + 1) % 1_000_000;
    const rk = `${String(at).padStart(15, "0")}-${String(this.historySeq).padStart(6, "0")}-${Math.random().toString(36).slice(2, 8)}`;
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

  async forgetEvent(cluster: string, key: string): Promise<void> {
    const pk = eventPartition(cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`, [
      "PartitionKey",
      "RowKey",
    ]);
    await this.tables.Readiness.removeAll(rows);
    await this.tables.Events.remove(encodeKey(cluster), encodeKey(key));
  }

  // ---------------------------------------------------------------- event lookups (the pages: statusQueries.ts)

  /** Whether the cluster holds this event (one point read). */
  async hasEvent(cluster: string, key: string): Promise<boolean> {
    return (await this.tables.Events.get(encodeKey(cluster), encodeKey(key))) !== null;
  }

  /** Clusters holding an event with this key (an EventId is unique in Azure, but not across tenants' test data). */
  async findEventClusters(key: string): Promise<string[]> {
    const rk = encodeKey(key);
    const rows = await this.tables.Events.query(odata`RowKey eq ${rk}`, ["PartitionKey", "RowKey"]);
    return rows.map((r) => decodeKey(r.partitionKey)).sort();
  }

  /**
   * Clusters the sweep must tick: those with an event not ended, or ended before the retention
   * cutoff (so the core can forget it).
   */
  async clustersToSweep(retentionCutoff: number): Promise<string[]> {
    const rows = await this.tables.Events.query(
      odata`ended eq ${false} or endedAt lt ${retentionCutoff}`,
      ["PartitionKey", "RowKey"],
    );
    return [...new Set(rows.map((r) => decodeKey(r.partitionKey)))].sort();
  }

  /** Deletes history rows older than the cutoff. */
  async purgeHistory(before: number): Promise<number> {
    const rows = await this.tables.History.query(odata`at lt ${before}`, [
      "PartitionKey",
      "RowKey",
    ]);
    await this.tables.History.removeAll(rows);
    return rows.length;
  }
}
