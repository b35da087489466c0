import { odata } from "@azure/data-tables";
import {
  dict,
  type EventRecord,
  isEnded,
  type Member,
  memberKey,
  type Readiness,
  type RelayReport,
  reportScope,
} from "@quiesce/shared";
import { fromEntity } from "./codec";
import type { IdleMemberCache } from "./idleMemberCache";
import { decodeKey, encodeKey, eventPartition } from "./keys";
import { emptyLoaded, etagKey, type Loaded, rememberEtag } from "./loaded";
import type { Tables } from "./tables";

/** A member's VMs named by this many events or fewer are point-read; more reads the partition. */
const POINT_READ_LIMIT = 16;

/**
 * Reads what the core needs, and nothing more: a report loads the events it concerns, each with
 * all its readiness rows and members (the core never judges an event on partial data); the
 * cluster's other events come along only for the budget of events in flight.
 */
export class StateReader {
  constructor(
    private readonly tables: Tables,
    private readonly idleMembers: IdleMemberCache,
  ) {}

  /**
   * An idle heartbeat (no events in its document, no hooks, no approvals) whose member this
   * instance holds as idle costs nothing; otherwise one point read of the member, and if the
   * report concerns any event, the cluster's events partition, those events' readiness and the
   * members they name.
   */
  async loadForReport(report: RelayReport): Promise<Loaded> {
    const cluster = report.cluster;
    const loaded = emptyLoaded(cluster);
    const mk = memberKey(report.vm.name);
    const idleReport =
      (report.document?.Events.length ?? 0) === 0 &&
      report.hooks.length === 0 &&
      report.approvals.length === 0;
    const cached = idleReport ? this.idleMembers.get(cluster, mk) : undefined;
    if (cached) {
      loaded.state.members[mk] = cached.member;
      loaded.etags.set(etagKey("Members", encodeKey(cluster), encodeKey(mk)), cached.etag);
      return loaded;
    }
    const member = await this.readMember(loaded, mk);
    const scope = reportScope(report, member);
    if (scope.size === 0) return loaded;
    const names = new Set<string>([mk]);
    for (const ev of report.document?.Events ?? [])
      for (const r of ev.Resources) names.add(memberKey(r));
    await this.loadActive(loaded, scope, names, { readinessOnlyFor: scope });
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
    opts: { allMembers?: boolean; readinessOnlyFor?: ReadonlySet<string> } = {},
  ): Promise<void> {
    const { cluster } = loaded.state;
    const pk = encodeKey(cluster);
    const rows = await this.tables.Events.query(odata`PartitionKey eq ${pk}`);
    for (const row of rows) {
      const ev = fromEntity<EventRecord>(row);
      loaded.state.events[ev.key] = ev;
      rememberEtag(loaded, "Events", row);
    }
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
      ...readinessKeys.map((k) => this.readReadiness(loaded, k)),
      opts.allMembers || wantMembers.length > POINT_READ_LIMIT
        ? this.readAllMembers(loaded)
        : Promise.all(wantMembers.map((n) => this.readMember(loaded, n))),
    ]);
  }

  private async readMember(loaded: Loaded, mk: string): Promise<Member | undefined> {
    const { cluster } = loaded.state;
    const row = await this.tables.Members.get(encodeKey(cluster), encodeKey(mk));
    if (!row) return undefined;
    const member = fromEntity<Member>(row);
    loaded.state.members[mk] = member;
    rememberEtag(loaded, "Members", row);
    if (row.etag) this.idleMembers.remember(cluster, mk, member, row.etag);
    return member;
  }

  private async readAllMembers(loaded: Loaded): Promise<void> {
    const pk = encodeKey(loaded.state.cluster);
    for (const row of await this.tables.Members.query(odata`PartitionKey eq ${pk}`)) {
      loaded.state.members[decodeKey(row.rowKey)] = fromEntity<Member>(row);
      rememberEtag(loaded, "Members", row);
    }
  }

  private async readReadiness(loaded: Loaded, key: string): Promise<void> {
    const pk = eventPartition(loaded.state.cluster, key);
    const rows = await this.tables.Readiness.query(odata`PartitionKey eq ${pk}`);
    const byMember = dict<Readiness>();
    for (const row of rows) {
      byMember[decodeKey(row.rowKey)] = fromEntity<Readiness>(row);
      rememberEtag(loaded, "Readiness", row);
    }
    loaded.state.readiness[key] = byMember;
  }
}
