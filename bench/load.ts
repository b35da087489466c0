import { randomUUID } from "node:crypto";
import { TableClient } from "@azure/data-tables";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { CoordinatorProcess } from "@quiesce/testkit/coordinator";
import { reportPoster } from "@quiesce/testkit/coordinator";
import { scheduled } from "@quiesce/testkit/documents";
import { drive, Fleet, hookRun, resourceIdOf, vmNames } from "@quiesce/testkit/fleet";
import { round } from "./stats";

/**
 * The load of figures (c) and (d): a fleet's reports from a fixed number of workers against a
 * coordinator process, counted with the store's own counters, and the raw Azurite upserts they
 * are compared with.
 */

export const CONCURRENCY = 16;
const RAW_MS = 3_000;

export interface Ops {
  reads: number;
  queries: number;
  writes: number;
}

export interface LoadRun {
  vms: number;
  concurrency: number;
  seconds: number;
  reports: number;
  errors: number;
  reportsPerSecond: number;
  opsPerReport: Ops & { total: number };
  /** CPU time of the coordinator process per report answered (user + system). */
  coordinatorCpuMsPerReport: number;
}

/** A fleet of one cluster; once told, every group of VMs sees one Scheduled event. */
export class EventFleet {
  private readonly fleet: Fleet;
  private readonly events = new Map<number, ScheduledEvent>();
  private groupSize = 10;

  constructor(prefix: string, count: number, digits: number, cluster: string) {
    this.fleet = new Fleet({ names: vmNames(prefix, count, digits), cluster });
  }

  get size(): number {
    return this.fleet.size;
  }

  /** Every VM of group `g` (groupSize VMs) sees one Scheduled event naming its first two. */
  scheduleEvents(groupSize: number): void {
    const notBefore = new Date(Date.now() + 15 * 60_000).toUTCString();
    const names = this.fleet.names;
    for (let g = 0; g * groupSize < names.length; g++) {
      const resources = [names[g * groupSize] as string, names[g * groupSize + 1] as string];
      this.events.set(
        g,
        scheduled(randomUUID().toUpperCase(), resources, { NotBefore: notBefore }),
      );
    }
    this.groupSize = groupSize;
  }

  /** VM i's heartbeat: its first event's first VM has drained, the second is still draining. */
  report(i: number): RelayReport {
    const name = this.fleet.names[i] as string;
    const ev = this.events.get(Math.floor(i / this.groupSize));
    const hooks: RelayReport["hooks"] = [];
    if (ev && ev.Resources[0] === name)
      hooks.push({ eventId: ev.EventId, drain: hookRun("succeeded") });
    if (ev && ev.Resources[1] === name)
      hooks.push({ eventId: ev.EventId, drain: hookRun("running") });
    return this.fleet.report(i, {
      document: { DocumentIncarnation: ev ? 2 : 1, Events: ev ? [ev] : [] },
      hooks,
    });
  }
}

/** `fleet`'s reports from CONCURRENCY workers, for `ms` or `total` reports, measured. */
export async function loadRun(
  local: CoordinatorProcess,
  fleet: EventFleet,
  limit: { ms?: number; total?: number },
): Promise<LoadRun> {
  const send = reportPoster(local);
  const before = await local.stats();
  const r = await drive(
    CONCURRENCY,
    limit,
    async (i) => (await send(fleet.report(i % fleet.size))).status === 200,
  );
  const after = await local.stats();
  const per = (k: keyof Ops) => round((after[k] - before[k]) / Math.max(1, r.ok), 3);
  const ops = { reads: per("reads"), queries: per("queries"), writes: per("writes") };
  return {
    vms: fleet.size,
    concurrency: CONCURRENCY,
    seconds: round(r.seconds, 2),
    reports: r.ok,
    errors: r.errors,
    reportsPerSecond: round(r.ok / r.seconds, 1),
    opsPerReport: { ...ops, total: round(ops.reads + ops.queries + ops.writes, 3) },
    coordinatorCpuMsPerReport: round((after.cpuMs - before.cpuMs) / Math.max(1, r.ok), 3),
  };
}

/** Raw single-entity upserts per second into a fresh table, at the same concurrency. */
export async function rawUpserts(connectionString: string, vms: number): Promise<number> {
  const table = TableClient.fromConnectionString(
    connectionString,
    `raw${randomUUID().slice(0, 8)}`,
    {
      allowInsecureConnection: true,
    },
  );
  await table.createTable();
  // About the size of a member row: a JSON record in one string property.
  const d0 = JSON.stringify({
    name: "vm",
    vmId: randomUUID(),
    resourceId: resourceIdOf("vm-0000"),
    lastSeenAt: Date.now(),
    eventKeys: [],
  });
  const r = await drive(CONCURRENCY, { ms: RAW_MS }, async (i) => {
    await table.upsertEntity({ partitionKey: "bench", rowKey: `vm-${i % vms}`, d0 }, "Replace");
    return true;
  });
  await table.deleteTable();
  return r.ok / r.seconds;
}
