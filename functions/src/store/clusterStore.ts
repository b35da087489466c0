import { odata } from "@azure/data-tables";
import type { Decision, Transition } from "@quiesce/core";
import { type Clock, systemClock } from "@quiesce/protocol";
import { isBudgetRow } from "./budget";
import { DecisionWriter } from "./decisionWriter";
import { type BackfillPass, EventIndex } from "./eventIndex";
import { type AuditEntry, HistoryLog } from "./history";
import { IdleMemberCache } from "./idleMemberCache";
import { decodeKey, encodeKey } from "./keys";
import { etagKey, type Loaded } from "./loaded";
import { MemberRows } from "./memberRows";
import { ReportReadCache } from "./reportReadCache";
import { RowReader } from "./rowReader";
import { type ReportScope, StateReader } from "./stateReader";
import type { OpCounts, Tables } from "./tables";

export type { BackfillPass } from "./eventIndex";
export type { AuditEntry, HistoryRow } from "./history";
export type { Loaded } from "./loaded";
export type { ReportScope } from "./stateReader";

/**
 * The coordinator's state in four tables:
 * - Members:   PK cluster|bucket, RK memberKey(vmName)      one row per relay's VM (keys.ts:
 *              64 buckets per cluster; `cluster` alone before, moved by memberMigration.ts)
 * - Events:    PK cluster, RK eventKey(EventId)             one row per event
 * - Readiness: PK cluster|eventKey, RK memberKey            one VM's view of one event
 * - History:   PK cluster|eventKey, RK time-seq-random      transitions and operator audit
 * - EventIndex: PK eventKey, RK cluster                     which clusters hold an event (eventIndex.ts)
 * Keys are escaped by `encodeKey`; records are JSON in d0..dN (see codec.ts).
 *
 * A load (stateReader.ts) returns a ClusterState plus the ETag of every row read; `commit`
 * (decisionWriter.ts) writes exactly the rows whose object identity changed (the core's contract).
 * What to read and what has ended are the caller's to say (pipeline/): the store does I/O and
 * never decides. The status pages read through statusQueries.ts.
 */
export class ClusterStore {
  private readonly reader: StateReader;
  private readonly writer: DecisionWriter;
  private readonly history: HistoryLog;
  private readonly eventIndex: EventIndex;
  /** The Members table across both partition schemes (memberRows.ts), shared with the status queries. */
  readonly memberRows: MemberRows;

  constructor(
    /** Read by the status queries (statusQueries.ts), which never write. */
    readonly tables: Tables,
    private readonly totals: OpCounts,
    /** The coordinator's clock: ages the idle-member copies. */
    clock: Clock = systemClock,
  ) {
    const idleMembers = new IdleMemberCache(() => clock.now());
    const copies = new ReportReadCache(() => clock.now());
    this.history = new HistoryLog(tables);
    this.eventIndex = new EventIndex(tables.EventIndex, tables.Events);
    this.memberRows = new MemberRows(tables.Members, () => clock.now());
    this.reader = new StateReader(
      tables,
      idleMembers,
      new RowReader(tables, idleMembers, this.memberRows, copies),
    );
    this.writer = new DecisionWriter(tables, idleMembers, this.history, copies);
  }

  async init(): Promise<void> {
    await Promise.all(Object.values(this.tables).map((t) => t.create()));
  }

  stats(): OpCounts {
    return { ...this.totals };
  }

  loadReporter(
    cluster: string,
    reporter: string,
    opts: { idleHeartbeat: boolean },
  ): Promise<Loaded> {
    return this.reader.loadReporter(cluster, reporter, opts);
  }

  loadScope(loaded: Loaded, scope: ReportScope): Promise<Loaded> {
    return this.reader.loadScope(loaded, scope);
  }

  refreshCopies(loaded: Loaded): Promise<void> {
    return this.reader.refreshCopies(loaded);
  }

  addClusterEvents(loaded: Loaded): Promise<Loaded> {
    return this.reader.addClusterEvents(loaded);
  }

  loadCluster(cluster: string, alsoEvents: Iterable<string> = []): Promise<Loaded> {
    return this.reader.loadCluster(cluster, alsoEvents);
  }

  loadEvents(
    cluster: string,
    keys: Iterable<string>,
    vms: Iterable<string> = [],
    opts: { onlyTheseEvents?: boolean } = {},
  ): Promise<Loaded> {
    return this.reader.loadEvents(cluster, keys, vms, opts);
  }

  /**
   * The decision's rows (decisionWriter.ts), with the event index (eventIndex.ts): the index rows
   * of the events it creates before them, those of the events it forgets after them.
   */
  async commit(
    loaded: Loaded,
    decision: Decision,
    opts: { reporter?: string; audit?: AuditEntry; ended: ReadonlySet<string> },
  ): Promise<void> {
    const { cluster } = loaded.state;
    const pk = encodeKey(cluster);
    const created = Object.keys(decision.state.events).filter(
      (k) => !loaded.etags.has(etagKey("Events", pk, encodeKey(k))),
    );
    await this.eventIndex.add(cluster, created);
    await this.writer.commit(loaded, decision, opts);
    for (const key of decision.forget) await this.eventIndex.remove(cluster, key);
  }

  async forgetEvent(cluster: string, key: string): Promise<void> {
    await this.writer.forgetEvent(cluster, key);
    await this.eventIndex.remove(cluster, key);
  }

  /** Whether the cluster holds this event (one point read). */
  async hasEvent(cluster: string, key: string): Promise<boolean> {
    return (await this.tables.Events.get(encodeKey(cluster), encodeKey(key))) !== null;
  }

  /**
   * Clusters holding an event with this key (an EventId is unique in Azure, but not across
   * tenants' test data): through the event index, whatever the number of events stored.
   */
  findEventClusters(key: string): Promise<string[]> {
    return this.eventIndex.clustersOf(key);
  }

  /** One pass of the event index's one-time backfill (the sweep's; eventIndex.ts). */
  backfillEventIndex(): Promise<BackfillPass> {
    return this.eventIndex.backfill();
  }

  /** Every event key and the clusters holding it: one key-only listing (the backstop's). */
  async eventClusters(): Promise<Map<string, string[]>> {
    const rows = await this.tables.Events.query(undefined, ["PartitionKey", "RowKey"]);
    const out = new Map<string, string[]>();
    for (const r of rows) {
      if (isBudgetRow(r)) continue;
      const key = decodeKey(r.rowKey);
      out.set(key, [...(out.get(key) ?? []), decodeKey(r.partitionKey)]);
    }
    return out;
  }

  /**
   * Clusters the sweep must tick: those with an event not ended, or ended before the retention
   * cutoff (so the core can forget it).
   */
  async clustersToSweep(retentionCutoff: number): Promise<string[]> {
    const rows = await this.tables.Events.query(
      odata`ended eq ${false} or endedAt lt ${retentionCutoff}`,
      ["PartitionKey", "RowKey", "ended"],
    );
    // Events an instance of the previous release created have no index row yet (rolling upgrade).
    await this.eventIndex.indexActive(rows.filter((r) => r.ended === false));
    return [...new Set(rows.map((r) => decodeKey(r.partitionKey)))].sort();
  }

  /** Notes outside any round (a patch run cancelled for these events: guestPatching/service.ts). */
  appendHistory(cluster: string, transitions: Transition[]): Promise<void> {
    return this.history.append(cluster, transitions);
  }

  /** Deletes history rows older than the cutoff. */
  purgeHistory(before: number): Promise<number> {
    return this.history.purge(before);
  }
}
