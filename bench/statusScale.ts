import { randomUUID } from "node:crypto";
import { startAzurite } from "@quiesce/functions";
import { parseJsonWith } from "@quiesce/protocol";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import { type CoordinatorProcess, reportPoster } from "@quiesce/testkit/coordinator";
import { scheduled } from "@quiesce/testkit/documents";
import { Fleet, pool, vmNames } from "@quiesce/testkit/fleet";
import { z } from "zod";
import { startBenchCoordinator } from "./coordinator";
import { CONCURRENCY } from "./load";
import { round, type Summary, summary } from "./stats";

/**
 * (e) The status API at scale: about 3,000 events and 1,800 members loaded into Azurite through
 *     the coordinator's own report route (so the rows are exactly what it writes), then the time
 *     and size of GET /api/status (first page, default and largest limit, all pages), of the
 *     cluster page of the largest cluster and of one event, with the coordinator's resident
 *     memory before loading, after loading and after the status calls.
 */

export interface StatusScaleResult {
  members: number;
  events: { active: number; ended: number };
  clusters: Array<{ name: string; vms: number; events: number }>;
  loadSeconds: number;
  requests: Array<{
    name: string;
    path: string;
    samples: number;
    ms: Summary;
    bytes: number;
    /** Table operations the coordinator made for one such request (mean). */
    tableOps: { reads: number; queries: number };
    /** CPU time of the coordinator process per request (user + system). */
    coordinatorCpuMs: number;
  }>;
  walk: { pages: number; events: number; seconds: number; maxPageBytes: number };
  /** Resident memory, and the heap still in use after a full garbage collection. */
  rssMB: { started: number; loaded: number; afterStatus: number };
  retainedHeapMB: { started: number; loaded: number; afterStatus: number };
}

/** The fleet: one large cluster and three smaller ones; 1,800 VMs, 3,000 events in all. */
const CLUSTERS = [
  { name: "fleet", vms: 1200, events: 2000 },
  { name: "web", vms: 200, events: 340 },
  { name: "db", vms: 200, events: 330 },
  { name: "batch", vms: 200, events: 330 },
];
const EVENTS_PER_DOCUMENT = 100;
/** Of each document's events, this many leave the next document: cancelled (ended). */
const CANCELLED_PER_DOCUMENT = 10;
const SAMPLES = 10;

/** Scale-set VMs in placement groups of 100, a zonal pair of sets, the rest ungrouped. */
function placement(cluster: string, i: number): Partial<RelayReport["vm"]> {
  if (i % 4 === 3) return { zone: String((i % 3) + 1) };
  if (i % 4 === 2) return {};
  return {
    vmScaleSetName: `${cluster}-vmss`,
    placementGroupId: `${cluster}-pg-${Math.floor(i / 100)}`,
  };
}

const fleetOf = (c: (typeof CLUSTERS)[number]) =>
  new Fleet({
    names: vmNames(`${c.name}-`, c.vms, 4),
    cluster: c.name,
    placement: (i) => placement(c.name, i),
  });

function event(fleet: Fleet, reporter: number, n: number): ScheduledEvent {
  // The reporter and two neighbours: events of a group name a few of its VMs.
  const name = (i: number) => fleet.names[i % fleet.size] as string;
  return scheduled(
    randomUUID().toUpperCase(),
    [name(reporter), name(reporter + 1 + (n % 7)), name(reporter + 9 + (n % 13))],
    {
      EventType: n % 3 === 0 ? "Reboot" : "Freeze",
      NotBefore: new Date(Date.now() + 3600_000).toUTCString(),
    },
  );
}

const document = (incarnation: number, events: ScheduledEvent[]) => ({
  document: { DocumentIncarnation: incarnation, Events: events },
});

async function load(local: CoordinatorProcess): Promise<{ active: number; ended: number }> {
  const send = reportPoster(local);
  const post = async (body: RelayReport) => {
    const { status, text } = await send(body);
    if (status !== 200) throw new Error(`report: HTTP ${status}: ${text.slice(0, 200)}`);
  };
  // Every VM registers with an empty document.
  const fleets = new Map(CLUSTERS.map((c) => [c.name, fleetOf(c)]));
  const all = CLUSTERS.flatMap((c) => Array.from({ length: c.vms }, (_, i) => ({ c, i })));
  await pool(all, CONCURRENCY, ({ c, i }) =>
    post((fleets.get(c.name) as Fleet).report(i, document(1, []))),
  );
  // Reporters 0, 20, 40, ... each see a document of up to 100 events, then a newer one without
  // the first ten (Azure cancelled them). One reporter per cluster at a time: documents of one
  // cluster would only contend on its events partition.
  let active = 0;
  let ended = 0;
  await Promise.all(
    CLUSTERS.map(async (c) => {
      const fleet = fleets.get(c.name) as Fleet;
      for (let n = 0, r = 0; n < c.events; n += EVENTS_PER_DOCUMENT, r += 20) {
        const count = Math.min(EVENTS_PER_DOCUMENT, c.events - n);
        const events = Array.from({ length: count }, (_, k) => event(fleet, r, n + k));
        await post(fleet.report(r, document(2, events)));
        const kept = events.slice(Math.min(CANCELLED_PER_DOCUMENT, count));
        await post(fleet.report(r, document(3, kept)));
        active += kept.length;
        ended += count - kept.length;
      }
    }),
  );
  return { active, ended };
}

/** What the status walk reads of a page of GET /api/status. */
const StatusPage = z.looseObject({
  events: z.array(z.looseObject({ eventId: z.string() })),
  continuation: z.string().nullable(),
});

function parsed<S extends z.ZodType>(schema: S, text: string): z.output<S> {
  const r = parseJsonWith(schema, text);
  if (!r.ok) throw new Error(`status API answer: ${r.error}`);
  return r.value;
}

export async function measureStatusScale(): Promise<StatusScaleResult> {
  const azurite = await startAzurite();
  try {
    const local = await startBenchCoordinator(azurite.connectionString, {
      execArgv: ["--expose-gc"],
    });
    try {
      const mb = (b: number) => round(b / 1e6, 1);
      const memory = async () => {
        const rss = (await local.stats()).rssBytes;
        return { rss: mb(rss), heap: mb((await local.stats({ gc: true })).heapUsedBytes) };
      };
      const started = await memory();
      const t0 = performance.now();
      const counts = await load(local);
      const loadSeconds = round((performance.now() - t0) / 1000, 1);
      const loaded = await memory();

      const get = async (path: string) => {
        const t = performance.now();
        const res = await fetch(`${local.url}${path}`, {
          headers: { authorization: `Bearer ${local.operatorKey}` },
        });
        const text = await res.text();
        const ms = performance.now() - t;
        if (res.status !== 200)
          throw new Error(`${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
        return { ms, bytes: Buffer.byteLength(text), text };
      };
      const firstEvent = parsed(StatusPage, (await get("/api/status?limit=1")).text).events[0];
      const measure = async (name: string, path: string) => {
        await get(path); // warm: the first call pays for connection set-up and JIT
        const before = await local.stats();
        const samples = [];
        for (let i = 0; i < SAMPLES; i++) samples.push(await get(path));
        const after = await local.stats();
        return {
          name,
          path,
          samples: SAMPLES,
          ms: summary(samples.map((s) => round(s.ms, 1))),
          bytes: samples.at(-1)?.bytes ?? 0,
          tableOps: {
            reads: round((after.reads - before.reads) / SAMPLES, 1),
            queries: round((after.queries - before.queries) / SAMPLES, 1),
          },
          coordinatorCpuMs: round((after.cpuMs - before.cpuMs) / SAMPLES, 1),
        };
      };
      const requests = [
        await measure("status, first page (default limit 100)", "/api/status"),
        await measure("status, first page, limit 500", "/api/status?limit=500"),
        await measure("status, one cluster (fleet)", "/api/status?cluster=fleet"),
        await measure("status, ended events", "/api/status?state=ended"),
        await measure("cluster page (fleet: 1,200 members, 500 shown)", "/api/clusters/fleet"),
        await measure("cluster page, limit 2000", "/api/clusters/fleet?limit=2000"),
        await measure("one event", `/api/events/${firstEvent?.eventId ?? "none"}`),
      ];

      const tw = performance.now();
      let token: string | null = null;
      let pages = 0;
      let events = 0;
      let maxPageBytes = 0;
      do {
        const page = await get(
          `/api/status?state=all&limit=500${token ? `&continuation=${token}` : ""}`,
        );
        const body = parsed(StatusPage, page.text);
        pages++;
        events += body.events.length;
        maxPageBytes = Math.max(maxPageBytes, page.bytes);
        token = body.continuation;
      } while (token !== null);
      const walk = {
        pages,
        events,
        seconds: round((performance.now() - tw) / 1000, 2),
        maxPageBytes,
      };

      const afterStatus = await memory();
      return {
        members: CLUSTERS.reduce((n, c) => n + c.vms, 0),
        events: counts,
        clusters: CLUSTERS,
        loadSeconds,
        requests,
        walk,
        rssMB: { started: started.rss, loaded: loaded.rss, afterStatus: afterStatus.rss },
        retainedHeapMB: {
          started: started.heap,
          loaded: loaded.heap,
          afterStatus: afterStatus.heap,
        },
      };
    } finally {
      await local.stop();
    }
  } finally {
    await azurite.stop();
  }
}

export function renderStatusScale(r: StatusScaleResult): string {
  const lines = [
    "## (e) Status API at scale",
    "",
    `${r.members} members and ${r.events.active + r.events.ended} events (${r.events.active} active, ${r.events.ended} ended) in ${r.clusters.length} clusters (${r.clusters.map((c) => `${c.name}: ${c.vms} VMs, ${c.events} events`).join("; ")}), loaded through the report route in ${r.loadSeconds} s. Each request ${r.requests[0]?.samples ?? 0} times after one warm-up, over loopback, one at a time.`,
    "",
    "| Request | median / p90 | Bytes | Table reads / queries per request | Coordinator CPU per request |",
    "| --- | --- | --- | --- | --- |",
    ...r.requests.map(
      (q) =>
        `| ${q.name}: \`${q.path.replace(/[0-9A-F-]{36}/, "{id}")}\` | ${q.ms.median} ms / ${q.ms.p90} ms | ${q.bytes.toLocaleString("en-US")} | ${q.tableOps.reads} / ${q.tableOps.queries} | ${q.coordinatorCpuMs} ms |`,
    ),
    `| every page of \`/api/status?state=all&limit=500\` | ${r.walk.pages} pages, ${r.walk.events} events in ${r.walk.seconds} s | largest page ${r.walk.maxPageBytes.toLocaleString("en-US")} | | |`,
    "",
    `Coordinator resident memory: ${r.rssMB.started} MB at start, ${r.rssMB.loaded} MB after loading, ${r.rssMB.afterStatus} MB after the status calls; heap in use after a full collection: ${r.retainedHeapMB.started}, ${r.retainedHeapMB.loaded} and ${r.retainedHeapMB.afterStatus} MB.`,
    "",
  ];
  return lines.join("\n");
}
