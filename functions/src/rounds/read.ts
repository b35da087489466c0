import { memberKey, type ReadSet, reportScope } from "@quiesce/core";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { ClusterStore, Loaded } from "../store";

/**
 * A round's read set (core/src/rounds/round.ts) as the store's loads: the one place that turns
 * "what this round must read" into table reads. `cached`: a report may take other VMs' rows from
 * this instance's copies (store/reportReadCache.ts); the runner reads them afresh before a write.
 */
export async function read(
  store: ClusterStore,
  cluster: string,
  set: ReadSet,
  opts: { cached?: boolean } = {},
): Promise<Loaded> {
  switch (set.kind) {
    case "cluster":
      return store.loadCluster(cluster, set.alsoEvents);
    case "events":
      return store.loadEvents(cluster, set.events, set.vms, { onlyTheseEvents: true });
    case "report":
      return loadReport(store, set.report, opts);
    case "member":
      return store.loadReporter(cluster, memberKey(set.vm), { idleHeartbeat: false });
  }
}

/**
 * The reporter's member row, then what the core's `reportScope` says the report concerns (the
 * events in its document, hooks and approvals, and those its member row listed), with the
 * readiness rows and members their decision reads. By default only those events, point-read: the
 * events partition is the cluster's hottest, and the others matter only to an election (tests
 * read them all with `onlyItsEvents: false`).
 */
export async function loadReport(
  store: ClusterStore,
  report: RelayReport,
  opts: { cached?: boolean; onlyItsEvents?: boolean } = {},
): Promise<Loaded> {
  const reporter = memberKey(report.vm.name);
  const loaded = await store.loadReporter(report.cluster, reporter, {
    idleHeartbeat: isIdleHeartbeat(report),
  });
  const events = reportScope(report, loaded.state.members[reporter]);
  if (events.size === 0) return loaded;
  const members = new Set<string>([reporter]);
  for (const ev of report.document?.Events ?? [])
    for (const vm of ev.Resources) members.add(memberKey(vm));
  return store.loadScope(loaded, {
    events,
    members,
    reporter,
    onlyTheseEvents: opts.onlyItsEvents ?? true,
    cached: opts.cached ?? false,
  });
}

/** Nothing in its document, no hooks, no approvals: its member may come from the idle cache. */
const isIdleHeartbeat = (report: RelayReport): boolean =>
  (report.document?.Events.length ?? 0) === 0 &&
  report.hooks.length === 0 &&
  report.approvals.length === 0;
