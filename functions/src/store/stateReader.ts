import { odata } from "@azure/data-tables";
import {
  type EventRecord,
  isEnded,
  type Member,
  memberKey,
  type Readiness,
  type UnreadableEvent,
} from "@quiesce/core";
import { type Dict, dict } from "@quiesce/protocol";
import type { StoredEntity } from "./codec";
import type { IdleMemberCache } from "./idleMemberCache";
import { decodeKey, encodeKey, eventPartition, memberPartition } from "./keys";
import { emptyLoaded, etagKey, type Loaded, rememberEtag } from "./loaded";
import type { MemberRow, MemberRows } from "./memberRows";
import { decodeRow, eventOfRow, StoredEvent, StoredMember, StoredReadiness } from "./rows";
import type { Tables } from "./tables";

/**
 * A report point-reads at most this many rows of one partition (the readiness rows of one of its
 * events, or the members its events name); past it, one query of the partition is cheaper.
 */
const REPORT_POINT_READS = 16;

/** What a report's decision reads, as the caller worked it out with the core's `reportScope`. */
export interface ReportScope {
  /** The events the report concerns (`reportScope`). */
  events: ReadonlySet<string>;
  /** Member keys the report names: the reporter's and every VM in its document's Resources. */
  members: ReadonlySet<string>;
  /** The reporter's member key: its readiness rows are read with the rows its events need. */
  reporter: string;
  /** Point-read only these events instead of querying the cluster's events partition. */
  onlyTheseEvents: boolean;
}

/**
 * Reads what the core needs, and nothing more: a report loads the events it concerns, each with
 * the readiness rows and members its decision reads (every VM its Resources name, those that left
 * or are disputed, and the reporter: `rowsAReportNeeds`), so the core never judges an event on
 * partial data; the cluster's other events come along only for the budget of events in flight.
 * The sweep and operator actions read every row.
 */
export class StateReader {
  constructor(
    private readonly tables: Tables,
    private readonly idleMembers: IdleMemberCache,
    private readonly memberRows: MemberRows,
  ) {}

  /**
   * A report's first read: its relay's member row. An idle heartbeat (no events in its document,
   * no hooks, no approvals) whose member this instance holds as idle costs nothing
   * (idleMemberCache.ts says why that is safe); otherwise one point read.
   */
  async loadReporter(
    cluster: string,
    mk: string,
    opts: { idleHeartbeat: boolean },
  ): Promise<Loaded> {
    const loaded = emptyLoaded(cluster);
    const cached = opts.idleHeartbeat ? this.idleMembers.get(cluster, mk) : undefined;
    if (cached) {
      loaded.state.members[mk] = cached.member;
      loaded.etags.set(
        etagKey("Members", memberPartition(cluster, mk), encodeKey(mk)),
        cached.etag,
      );
      return loaded;
    }
    await this.readMember(loaded, mk);
    return loaded;
  }

  /**
   * A report's second read, into what `loadReporter` read: the events it concerns (point reads,
   * or the cluster's events partition), those events' readiness and the members they name.
   */
  async loadScope(loaded: Loaded, scope: ReportScope): Promise<Loaded> {
    await this.loadActive(loaded, new Set(scope.events), new Set(scope.members), {
      readinessOnlyFor: scope.events,
      reporter: scope.reporter,
      onlyItsEvents: scope.onlyTheseEvents,
    });
    return loaded;
  }

  /**
   * Adds the cluster's other events to a load that read only the report's own
   * (`onlyItsEvents`): one query of the events partition; the events already read keep the
   * version (and ETag) they were read at, consistent with their readiness rows.
   */
  async addClusterEvents(loaded: Loaded): Promise<Loaded> {
    const pk = encodeKey(loaded.state.cluster);
    for (const row of await this.tables.Events.query(odata`PartitionKey eq ${pk}`)) {
      const key = decodeKey(row.rowKey);
      if (loaded.state.events[key] || loaded.state.unreadableEvents?.[key]) continue;
      this.addEvent(loaded, row);
    }
    loaded.onlyItsEvents = false;
    return loaded;
  }

  /** Everything the core needs to act on the cluster's events: for ticks and operator actions. */
  async loadCluster(cluster: string, alsoEvents: Iterable<string> = []): Promise<Loaded> {
    const loaded = emptyLoaded(cluster);
    await this.loadActive(loaded, new Set(alsoEvents), new Set(), { allMembers: true });
    return loaded;
  }

  private async loadActive(
    loaded: Loaded,
    keys: Set<string>,
    names: Set<string>,
    opts: {
      allMembers?: boolean;
      readinessOnlyFor?: ReadonlySet<string>;
      /** A report's relay: its readiness rows are read with the rows its events need. */
      reporter?: string;
      /**
       * Point-read only `keys` from the events partition instead of querying all of it: the
       * partition holds every event of the cluster, ended ones for two weeks, and every relay
       * that sees an event reports every active interval, so the query put (events × reports/s)
       * entities on one partition (bench (h)).
       */
      onlyItsEvents?: boolean;
    } = {},
  ): Promise<void> {
    const { cluster } = loaded.state;
    const pk = encodeKey(cluster);
    const rows = opts.onlyItsEvents
      ? (await Promise.all([...keys].map((k) => this.tables.Events.get(pk, encodeKey(k))))).filter(
          (r) => r !== null,
        )
      : await this.tables.Events.query(odata`PartitionKey eq ${pk}`);
    if (opts.onlyItsEvents) loaded.onlyItsEvents = true;
    for (const row of rows) this.addEvent(loaded, row);
    const only = opts.readinessOnlyFor;
    // A report's own events are read even without an event row: an attempt that failed after
    // writing readiness but before the event (a lost race, a 5xx, a crash) left rows the next
    // attempt must see and replace under their ETags, or it would try to create them forever.
    const readinessKeys = only
      ? [...only]
      : Object.values(loaded.state.events)
          .filter((e) => !isEnded(e) || keys.has(e.key))
          .map((e) => e.key);
    for (const key of readinessKeys) {
      const ev = loaded.state.events[key];
      if (ev && !isEnded(ev)) for (const r of ev.resources) names.add(memberKey(r));
    }
    const wantMembers = [...names].filter((n) => !loaded.state.members[n]);
    await Promise.all([
      ...readinessKeys.map((k) => {
        const rows = opts.reporter ? rowsAReportNeeds(loaded.state.events[k], opts.reporter) : null;
        return rows ? this.readReadinessRows(loaded, k, rows) : this.readReadiness(loaded, k);
      }),
      opts.allMembers || wantMembers.length > REPORT_POINT_READS
        ? this.readAllMembers(loaded)
        : Promise.all(wantMembers.map((n) => this.readMember(loaded, n))),
    ]);
  }

  private async readMember(loaded: Loaded, mk: string): Promise<Member | undefined> {
    const found = await this.memberRows.get(loaded.state.cluster, mk);
    return found ? this.addMember(loaded, mk, found, true) : undefined;
  }

  private async readAllMembers(loaded: Loaded): Promise<void> {
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
    const member = decodeRow(this.tables.Members, StoredMember, row);
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

  /** Point reads of some rows of an event's partition (those absent are simply not there). */
  private async readReadinessRows(loaded: Loaded, key: string, mks: string[]): Promise<void> {
    const pk = eventPartition(loaded.state.cluster, key);
    const byMember = dict<Readiness>();
    loaded.state.readiness[key] = byMember;
    await Promise.all(
      mks.map(async (mk) => {
        const row = await this.tables.Readiness.get(pk, encodeKey(mk));
        if (row) this.addReadiness(loaded, byMember, mk, row);
      }),
    );
  }

  private async readReadiness(loaded: Loaded, key: string): Promise<void> {
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
  private addEvent(loaded: Loaded, row: StoredEntity): void {
    rememberEtag(loaded, "Events", row);
    const ev = decodeRow(this.tables.Events, StoredEvent, row, eventOfRow(row));
    if (ev.ok) {
      loaded.state.events[ev.value.key] = ev.value;
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
    const r = decodeRow(this.tables.Readiness, StoredReadiness, row);
    if (r.ok) byMember[mk] = r.value;
  }
}

function unreadableMember(loaded: Loaded, mk: string, problem: string): void {
  loaded.state.unreadableMembers ??= dict<string>();
  loaded.state.unreadableMembers[mk] = problem;
}

/**
 * The readiness rows a report about event `e` needs: those of the VMs its Resources name
 * (disputed ones included: they stay in Resources), which are all the approval decision and the
 * recovers owed read, since only a VM in Resources runs a drain; and the reporter's own, the only
 * row a report writes. Every VM of a group sees the group's events and reports every active
 * interval, so reading the whole partition made each report cost as many entities as the group
 * has VMs: a 100-VM placement group alone put 2,000 entities/s on one partition, Table Storage's
 * target (bench (h)). Not read: the rows of VMs that were never named or left Resources (a VM
 * that drained and was then dropped by a newer document no longer holds the event open on a
 * report; the sweep reads every row). Null (read the partition) when the event is not stored yet
 * (rows a failed attempt left must be seen) or when so many rows are needed that one query is
 * cheaper.
 */
export function rowsAReportNeeds(e: EventRecord | undefined, reporter: string): string[] | null {
  if (!e) return null;
  const mks = new Set<string>([reporter]);
  for (const r of e.resources) mks.add(memberKey(r));
  return mks.size <= REPORT_POINT_READS ? [...mks] : null;
}
