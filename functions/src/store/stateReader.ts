import { odata } from "@azure/data-tables";
import { isEnded, memberKey } from "@quiesce/core";
import { isBudgetRow, readBudgetEtag } from "./budget";
import type { IdleMemberCache } from "./idleMemberCache";
import { decodeKey, encodeKey, memberPartition } from "./keys";
import { emptyLoaded, etagKey, type Loaded } from "./loaded";
import { REPORT_POINT_READS, rowsAReportNeeds } from "./reportRows";
import type { RowReader } from "./rowReader";
import type { Tables } from "./tables";

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
  /**
   * Other VMs' readiness and member rows may be this instance's copies (reportReadCache.ts),
   * listed in `Loaded.copies`: a decision on them may stand only if it changes nothing.
   */
  cached?: boolean;
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
    private readonly rows: RowReader,
  ) {}

  /** Reads afresh the rows a load took from this instance's copies (RowReader.refreshCopies). */
  refreshCopies(loaded: Loaded): Promise<void> {
    return this.rows.refreshCopies(loaded);
  }

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
    loaded.onlyItsEvents = true; // none of the cluster's events yet: no election on this alone
    const cached = opts.idleHeartbeat ? this.idleMembers.get(cluster, mk) : undefined;
    if (cached) {
      loaded.state.members[mk] = cached.member;
      loaded.etags.set(
        etagKey("Members", memberPartition(cluster, mk), encodeKey(mk)),
        cached.etag,
      );
      return loaded;
    }
    await this.rows.readMember(loaded, mk);
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
      cached: scope.cached ?? false,
    });
    return loaded;
  }

  /**
   * Adds the cluster's other events to a load that read only the report's own
   * (`onlyItsEvents`): one query of the events partition; the events already read keep the
   * version (and ETag) they were read at, consistent with their readiness rows.
   */
  async addClusterEvents(loaded: Loaded): Promise<Loaded> {
    if (loaded.onlyItsEvents === false) return loaded; // added already (a decision made again)
    const pk = encodeKey(loaded.state.cluster);
    // The budget row first: an election decided on these events is written under its ETag.
    loaded.budgetEtag = await readBudgetEtag(this.tables.Events, loaded.state.cluster);
    for (const row of await this.tables.Events.query(odata`PartitionKey eq ${pk}`)) {
      if (isBudgetRow(row)) continue;
      const key = decodeKey(row.rowKey);
      if (loaded.state.events[key] || loaded.state.unreadableEvents?.[key]) continue;
      this.rows.addEvent(loaded, row);
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

  /**
   * Some events of the cluster with what deciding them reads (their readiness rows, the members
   * they and `vms` name), beside every event row of the cluster (the budget of events in flight):
   * for an Event Grid delivery or a control-plane follow-up, which concern one event or a few.
   * `onlyTheseEvents`: point-read these events instead of the whole events partition, whose size
   * is every event of the cluster kept for retention (`addClusterEvents` adds the rest when the
   * decision may elect, as for a report).
   */
  async loadEvents(
    cluster: string,
    keys: Iterable<string>,
    vms: Iterable<string>,
    opts: { onlyTheseEvents?: boolean } = {},
  ): Promise<Loaded> {
    const loaded = emptyLoaded(cluster);
    const events = new Set(keys);
    const names = new Set([...vms].map(memberKey));
    await this.loadActive(loaded, events, names, {
      readinessOnlyFor: events,
      onlyItsEvents: opts.onlyTheseEvents ?? false,
    });
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
      cached?: boolean;
    } = {},
  ): Promise<void> {
    const { cluster } = loaded.state;
    const pk = encodeKey(cluster);
    if (!opts.onlyItsEvents) loaded.budgetEtag = await readBudgetEtag(this.tables.Events, cluster);
    const rows = opts.onlyItsEvents
      ? (await Promise.all([...keys].map((k) => this.tables.Events.get(pk, encodeKey(k))))).filter(
          (r) => r !== null,
        )
      : await this.tables.Events.query(odata`PartitionKey eq ${pk}`);
    loaded.onlyItsEvents = opts.onlyItsEvents ?? false;
    for (const row of rows) if (!isBudgetRow(row)) this.rows.addEvent(loaded, row);
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
        return rows
          ? this.rows.readReadinessRows(loaded, k, rows, opts.cached ?? false)
          : this.rows.readReadiness(loaded, k);
      }),
      opts.allMembers || wantMembers.length > REPORT_POINT_READS
        ? this.rows.readAllMembers(loaded)
        : Promise.all(
            wantMembers.map((n) => this.rows.readMember(loaded, n, opts.cached ?? false)),
          ),
    ]);
  }
}
