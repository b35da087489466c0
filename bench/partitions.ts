import { randomUUID } from "node:crypto";
import {
  ClusterStore,
  createHandlers,
  startAzurite,
  type TableName,
  zeroCounts,
} from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { type RelayReport, ReportResponse } from "@quiesce/protocol/relay";
import { scheduled } from "@quiesce/testkit/documents";
import {
  call,
  makeReport,
  request,
  type TestCoordinator,
  testCoordinator,
} from "@quiesce/testkit/harness";
import { type Tally, talliedTables } from "./partitionTally";
import { round } from "./stats";

/**
 * (h) Table Storage partition load at 10,000 VMs in one cluster during events. One partition
 * serves about 2,000 entities per second (bench/prices.json, limits): how many entities per
 * second land on each partition key when every relay reports at the cadence the coordinator
 * asks of it?
 *
 * The real handlers and store on Azurite, in this process, as three Function instances (each with
 * its own caches, reports spread over them in turn), on a manual clock: simulated time, so
 * the rates are those the default policy implies for 1,000 relays, not what two shared cores
 * can push. Each relay reports again after the `nextReportInSeconds` of its last answer; the
 * sweep runs every 10 s. Every table call is tallied by partition key: a point read or a write
 * is one entity, a query as many entities as it returned. The cluster has 100 placement groups of
 * 100 VMs (BENCH_PARTITION_VMS changes the count) and keeps 30 ended events (retained two weeks)
 * in its events partition. A group with
 * an event: every VM of it sees one Scheduled event naming 5 of them, whose drains are running
 * (the state an event spends its minutes in). Two scenarios: one group has an event (the
 * target's "1,000 VMs during an event"), and every group at once (a maintenance wave).
 */

const VMS = Number(process.env.BENCH_PARTITION_VMS ?? 10_000);
const GROUPS = VMS / 100;
const AFFECTED = 5;
const SIMULATED_SECONDS = 30;
const SWEEP_SECONDS = 10;
/** Function instances serving the reports (BENCH_PARTITION_INSTANCES): each has its own caches. */
const INSTANCES = Number(process.env.BENCH_PARTITION_INSTANCES ?? 3);

export interface PartitionLoad {
  table: TableName;
  /** The partition key with its cluster and event names generalized. */
  partition: string;
  entitiesPerSecond: number;
  shareOfTarget: number;
}

export interface PartitionScenario {
  name: string;
  endedEvents: number;
  reports: number;
  reportsPerSecond: number;
  busiest: PartitionLoad[];
}

export interface PartitionsResult {
  vms: number;
  /** Function instances the reports were spread over (absent in earlier runs: one). */
  instances?: number;
  groups: number;
  affectedPerEvent: number;
  simulatedSeconds: number;
  targetEntitiesPerSecond: number;
  scenarios: PartitionScenario[];
  /** Busiest partition's share of the target, over the scenarios. */
  worstShare: number;
  /** Busiest partition's share of the target with one event (the scenario). */
  oneEventShare: number;
  limit: number;
  pass: boolean;
}

const name = (i: number) => `vm-${String(i).padStart(4, "0")}`;
const group = (i: number) => Math.floor(i / (VMS / GROUPS));

function withGroup(r: RelayReport, i: number): RelayReport {
  return { ...r, vm: { ...r.vm, placementGroupId: `pg-${group(i)}` } };
}

const scheduledAt = (resources: string[], notBefore: number): ScheduledEvent =>
  scheduled(randomUUID().toUpperCase(), resources, {
    NotBefore: new Date(notBefore).toUTCString(),
  });

async function scenario(
  connectionString: string,
  label: string,
  endedEvents: number,
  groupsWithEvent: number,
): Promise<PartitionScenario> {
  const c: TestCoordinator = await testCoordinator(connectionString);
  const tally: Tally = new Map();
  const totals = zeroCounts();
  const tables = talliedTables(connectionString, c.prefix, totals, tally);
  // INSTANCES Function instances on the same tables, each with its own caches (the idle members,
  // the copies of rows reports during events read), reports spread over them in turn.
  const instances = Array.from({ length: INSTANCES }, () =>
    createHandlers({ ...c.deps, store: new ClusterStore(tables, totals, c.clock) }),
  );
  const handlers = instances[0] as (typeof instances)[number];
  let turn = 0;
  const cluster = "big";
  const send = async (r: RelayReport): Promise<ReportResponse> => {
    const on = instances[turn++ % INSTANCES] as (typeof instances)[number];
    const res = await call(
      on.report,
      request("POST", "relay/report", { key: c.relayKey, body: r }),
    );
    if (res.status !== 200) throw new Error(`report answered ${res.status}`);
    return ReportResponse.parse(res.body);
  };

  // Every relay registers; then the ended events of the last two weeks (seen, then cancelled).
  for (let i = 0; i < VMS; i++) await send(withGroup(makeReport(name(i), { cluster }), i));
  let incarnation = 1;
  for (let k = 0; k < endedEvents; k++) {
    const ev = scheduledAt([name(0)], c.clock.now() + 15 * 60_000);
    incarnation++;
    await send(withGroup(makeReport(name(0), { cluster, incarnation, events: [ev] }), 0));
    incarnation++;
    await send(withGroup(makeReport(name(0), { cluster, incarnation, events: [] }), 0));
    c.clock.advance(1000);
  }
  incarnation++;

  // One event in each of the first `groupsWithEvent` placement groups, naming its first
  // AFFECTED VMs; every VM of the group sees it. The other groups stay idle.
  const notBefore = c.clock.now() + 15 * 60_000;
  const events = Array.from({ length: groupsWithEvent }, (_, g) =>
    scheduledAt(
      Array.from({ length: AFFECTED }, (_, k) => name(g * (VMS / GROUPS) + k)),
      notBefore,
    ),
  );
  const at = new Date(c.clock.now()).toISOString();
  const report = (i: number, seq: number): RelayReport => {
    const ev = events[group(i)];
    if (!ev) return withGroup(makeReport(name(i), { cluster, seq }), i);
    const affected = ev.Resources.includes(name(i));
    return withGroup(
      {
        ...makeReport(name(i), { cluster, incarnation, events: [ev], seq }),
        hooks: affected
          ? [{ eventId: ev.EventId, drain: { status: "running", attempt: 1, startedAt: at } }]
          : [],
      },
      i,
    );
  };
  // Every relay reports the new document at once (as relays do on a change), then at the
  // cadence each answer asks for.
  const due: number[] = [];
  let seq = 10;
  for (let i = 0; i < VMS; i++) {
    // The next reports are spread over each relay's interval, as independent relays' are, so
    // the window sees the steady rate.
    const phase = ((i * 7919) % VMS) / VMS;
    if (!events[group(i)]) {
      due[i] = c.clock.now() + phase * DEFAULT_POLICY.idleReportSeconds * 1000;
      continue;
    }
    const a = await send(report(i, seq++));
    due[i] = c.clock.now() + phase * a.nextReportInSeconds * 1000;
  }
  // The measured window: simulated time, every relay at its asked cadence, the sweep every 10 s.
  tally.clear();
  const start = c.clock.now();
  const end = start + SIMULATED_SECONDS * 1000;
  let nextSweep = start + SWEEP_SECONDS * 1000;
  let reports = 0;
  for (;;) {
    let i = 0;
    for (let k = 1; k < VMS; k++) if ((due[k] as number) < (due[i] as number)) i = k;
    const t = Math.min(due[i] as number, nextSweep);
    if (t >= end) break;
    c.clock.t = Math.max(c.clock.t, t);
    if (t === nextSweep) {
      await handlers.sweep();
      nextSweep += SWEEP_SECONDS * 1000;
      continue;
    }
    const a = await send(report(i, seq++));
    reports++;
    due[i] = c.clock.now() + a.nextReportInSeconds * 1000;
  }
  const seconds = SIMULATED_SECONDS;
  const general = (table: string, pk: string) => {
    if (table === "Readiness" || table === "History") return "<cluster>|<event>";
    if (table === "Members" && pk.startsWith(`${cluster}|`))
      return `<cluster>|${pk.slice(cluster.length + 1)}`;
    return pk === cluster ? "<cluster>" : pk;
  };
  const loads: PartitionLoad[] = [...tally.entries()].map(([k, n]) => {
    const [table, pk] = k.split("\n") as [TableName, string];
    const perSecond = n / seconds;
    return {
      table,
      partition: general(table, pk),
      entitiesPerSecond: round(perSecond, 1),
      shareOfTarget: round(perSecond / 2000, 3),
    };
  });
  loads.sort((a, b) => b.entitiesPerSecond - a.entitiesPerSecond);
  return {
    name: label,
    endedEvents,
    reports,
    reportsPerSecond: round(reports / seconds, 1),
    busiest: loads.slice(0, 4),
  };
}

export async function measurePartitions(): Promise<PartitionsResult> {
  const azurite = await startAzurite();
  try {
    const scenarios = [
      await scenario(
        azurite.connectionString,
        "one group at a time: one placement group of 100 sees an event, 30 ended events retained",
        30,
        1,
      ),
      await scenario(
        azurite.connectionString,
        `a maintenance wave: all ${GROUPS} groups see an event at once, 30 ended events retained`,
        30,
        GROUPS,
      ),
    ];
    const worstShare = Math.max(...scenarios.map((s) => s.busiest[0]?.shareOfTarget ?? 0));
    const oneEventShare = scenarios[0]?.busiest[0]?.shareOfTarget ?? 0;
    return {
      vms: VMS,
      instances: INSTANCES,
      groups: GROUPS,
      affectedPerEvent: AFFECTED,
      simulatedSeconds: SIMULATED_SECONDS,
      targetEntitiesPerSecond: 2000,
      scenarios,
      worstShare,
      oneEventShare,
      limit: 0.5,
      pass: worstShare <= 0.5,
    };
  } finally {
    await azurite.stop();
  }
}
