import { mkdtempSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TableClient } from "@azure/data-tables";
import type { Readiness } from "@quiesce/core";
import { fromEntity, startAzurite } from "@quiesce/functions";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { Directive, RelayReport, ReportResponse } from "@quiesce/protocol/relay";
import { round, type Summary, summary } from "./stats";
import { type CoordinatorProcess, reportPoster, startCoordinatorProcess } from "./throughput";

/**
 * (i) 10,000 VMs in one deployment: three coordinator processes (the local host, as a Functions
 * instance runs the handlers) on one Azurite, behind a round-robin HTTP front in this process.
 * A load generator sends 10,000 relays' reports over real HTTP: every relay registers, then idle
 * heartbeats rotate over the fleet while, in ten clusters, ten events run their whole life
 * (each seen by a group of 10 VMs and naming 3 of them: drains, election, StartRequests
 * accepted, Started, gone, recovers). Each event's relays report in their own loop, every
 * 250 ms, so the events see the load. Measured: reports per second per process, and, as the
 * result, correctness under that load (every member row stored, exactly one approver per
 * event, every event Completed with every drain and recover stored) and the approval lag (the
 * last drain's report sent → an approve directive received by one of the event's relays).
 * On two shared cores the absolute rate is context.
 */

const VMS = 10_000;
const CLUSTERS = 20;
const EVENTS = 10;
const GROUP = 10;
const AFFECTED = 3;
const IDLE_WORKERS = 24;
const EVENT_REPORT_MS = 250;

export interface ScaleResult {
  vms: number;
  clusters: number;
  processes: number;
  events: number;
  registration: { seconds: number; reportsPerSecond: number };
  load: {
    seconds: number;
    reports: number;
    errors: number;
    /** Answers other than 200 by status (a relay retries them; 503: storage contention). */
    errorStatuses: Record<string, number>;
    reportsPerSecond: number;
    perProcess: Array<{ reports: number; reportsPerSecond: number; cpuMsPerReport: number }>;
  };
  members: { expected: number; stored: number };
  approvers: { perEvent: number[]; exactlyOne: boolean };
  completed: number;
  drainsAndRecoversStored: boolean;
  approvalLagMs: Summary;
  /** Approval lag ÷ the default active report interval (5 s): target ≤ 0.2 at p90. */
  lagRatio: Summary;
  target: number;
  pass: boolean;
}

const name = (i: number) => `vm-${String(i).padStart(5, "0")}`;
const clusterOf = (i: number) => `scale-${String(i % CLUSTERS).padStart(2, "0")}`;
const identity = (i: number): RelayReport["vm"] => ({
  name: name(i),
  vmId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  resourceId: `/subscriptions/00000000-0000-4000-8000-000000000000/resourceGroups/bench-rg/providers/Microsoft.Compute/virtualMachines/${name(i)}`,
});

/** The round-robin front: each request to the next coordinator in turn, counted. */
async function roundRobin(upstreams: string[]): Promise<{
  url: string;
  counts: number[];
  close(): Promise<void>;
}> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const targets = upstreams.map((u) => new URL(u));
  const counts = targets.map(() => 0);
  let next = 0;
  const server: Server = createServer((req, res) => {
    const k = next++ % targets.length;
    counts[k] = (counts[k] ?? 0) + 1;
    const t = targets[k] as URL;
    const up = httpRequest(
      {
        agent,
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}

export async function measureScale(): Promise<ScaleResult> {
  const azurite = await startAzurite();
  const keysDir = mkdtempSync(join(tmpdir(), "quiesce-scale-"));
  const processes: CoordinatorProcess[] = [];
  try {
    // One at a time: the first creates the shared keys, the others read them.
    for (let p = 0; p < 3; p++)
      processes.push(await startCoordinatorProcess(azurite.connectionString, [], false, keysDir));
    const front = await roundRobin(processes.map((p) => p.url));
    try {
      const relayKey = (processes[0] as CoordinatorProcess).relayKey;
      const send = reportPoster({ url: front.url, relayKey });
      let errors = 0;
      const errorStatuses: Record<string, number> = {};
      const post = async (body: RelayReport): Promise<ReportResponse | null> => {
        const res = await send(body).catch(() => null);
        if (res?.status !== 200) {
          errors++;
          const k = String(res?.status ?? "network");
          errorStatuses[k] = (errorStatuses[k] ?? 0) + 1;
          return null;
        }
        return JSON.parse(res.text) as ReportResponse;
      };
      const seqs = new Array<number>(VMS).fill(0);
      const nextSeq = (i: number) => {
        seqs[i] = (seqs[i] ?? 0) + 1;
        return seqs[i];
      };
      const report = (i: number, o: Partial<RelayReport> = {}): RelayReport => ({
        protocol: "1.0",
        cluster: clusterOf(i),
        vm: identity(i),
        relay: { version: "0.1.0", bootId: `boot-${i}`, seq: nextSeq(i) },
        document: { DocumentIncarnation: 1, Events: [] },
        hooks: [],
        approvals: [],
        sentAt: new Date().toISOString(),
        ...o,
      });

      // Registration: every relay's first report (it writes the member row).
      const t0 = performance.now();
      let n = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (n < VMS) {
            const i = n++;
            while ((await post(report(i))) === null) {} // a refused first report is retried
          }
        }),
      );
      const registrationSeconds = (performance.now() - t0) / 1000;

      // Events: the relays of group g (10 VMs of one cluster) see event g naming 3 of them.
      // VM indexes of one cluster are i ≡ c (mod CLUSTERS); group g is in cluster g.
      const groups = Array.from({ length: EVENTS }, (_, g) =>
        Array.from({ length: GROUP }, (_, k) => g + k * CLUSTERS),
      );
      const before = await Promise.all(processes.map((p) => p.stats()));
      const countsBefore = [...front.counts];
      const loadStart = performance.now();
      let stop = false;
      const idle = Array.from({ length: IDLE_WORKERS }, async (_, w) => {
        let i = w;
        while (!stop) {
          // Skip the event groups' VMs: their own loops report for them.
          if (i % CLUSTERS >= EVENTS || Math.floor(i / CLUSTERS) >= GROUP) {
            await post(report(i));
          }
          i = (i + IDLE_WORKERS) % VMS;
        }
      });
      const eventRuns = groups.map((vms, g) => runEvent(g, vms));
      const outcomes = await Promise.all(eventRuns);
      stop = true;
      await Promise.all(idle);
      const loadSeconds = (performance.now() - loadStart) / 1000;
      const after = await Promise.all(processes.map((p) => p.stats()));
      const perProcess = processes.map((_, k) => {
        const reports = (front.counts[k] ?? 0) - (countsBefore[k] ?? 0);
        return {
          reports,
          reportsPerSecond: round(reports / loadSeconds, 1),
          cpuMsPerReport: round(
            ((after[k]?.cpuMs ?? 0) - (before[k]?.cpuMs ?? 0)) / Math.max(1, reports),
            3,
          ),
        };
      });
      const loadReports = perProcess.reduce((t, p) => t + p.reports, 0);

      // What the storage holds at the end.
      const table = (t: string) =>
        TableClient.fromConnectionString(azurite.connectionString, `quiesce${t}`, {
          allowInsecureConnection: true,
        });
      let stored = 0;
      for await (const _ of table("Members").listEntities({ queryOptions: { select: ["RowKey"] } }))
        stored++;
      let drainsAndRecoversStored = true;
      for (const o of outcomes) {
        for (const vm of o.affected) {
          const row = await table("Readiness")
            .getEntity(`${clusterOf(vm)}|${o.eventId.toLowerCase()}`, name(vm))
            .catch(() => null);
          const r = row ? fromEntity<Readiness>(row) : null;
          if (r?.drain?.status !== "succeeded" || r.recover?.status !== "succeeded")
            drainsAndRecoversStored = false;
        }
      }
      const lags = outcomes.map((o) => o.lagMs).filter((v): v is number => v !== null);
      const lagSummary = summary(lags.map((v) => round(v, 1)));
      const lagRatio = summary(lags.map((v) => round(v / 5000, 3)));
      const perEvent = outcomes.map((o) => o.approvers.size);
      const completed = outcomes.filter((o) => o.completed).length;
      const exactlyOne = perEvent.every((c) => c === 1);
      return {
        vms: VMS,
        clusters: CLUSTERS,
        processes: processes.length,
        events: EVENTS,
        registration: {
          seconds: round(registrationSeconds, 1),
          reportsPerSecond: round(VMS / registrationSeconds, 1),
        },
        load: {
          seconds: round(loadSeconds, 1),
          reports: loadReports,
          errors,
          errorStatuses,
          reportsPerSecond: round(loadReports / loadSeconds, 1),
          perProcess,
        },
        members: { expected: VMS, stored },
        approvers: { perEvent, exactlyOne },
        completed,
        drainsAndRecoversStored,
        approvalLagMs: lagSummary,
        lagRatio,
        target: 0.2,
        pass:
          exactlyOne &&
          completed === EVENTS &&
          stored === VMS &&
          drainsAndRecoversStored &&
          lagRatio.p90 <= 0.2,
      };

      /** One event's whole life, driven by its group's relays, each reporting every 250 ms. */
      async function runEvent(g: number, vms: number[]) {
        const ev: ScheduledEvent = {
          EventId: `00000000-5CA1-4000-8000-${String(g).padStart(12, "0")}`,
          EventType: "Freeze",
          ResourceType: "VirtualMachine",
          Resources: vms.slice(0, AFFECTED).map(name),
          EventStatus: "Scheduled",
          NotBefore: new Date(Date.now() + 15 * 60_000).toUTCString(),
          Description: "Host server is undergoing maintenance.",
          EventSource: "Platform",
          DurationInSeconds: 5,
        };
        const affected = vms.slice(0, AFFECTED);
        // The fabric's document: Scheduled (2), Started once approved (3), gone (4).
        let incarnation = 2;
        const approvers = new Set<number>();
        let approvedAt = null as number | null;
        const drainDoneAt = new Map(affected.map((vm, k) => [vm, Date.now() + 1000 + 500 * k]));
        const hookOf = (vm: number): RelayReport["hooks"] => {
          if (!affected.includes(vm)) return [];
          const at = new Date().toISOString();
          const drained = Date.now() >= (drainDoneAt.get(vm) ?? 0);
          return [
            {
              eventId: ev.EventId,
              drain: drained
                ? { status: "succeeded", attempt: 1, startedAt: at, finishedAt: at }
                : { status: "running", attempt: 1, startedAt: at },
              ...(incarnation === 4
                ? { recover: { status: "succeeded", attempt: 1, startedAt: at, finishedAt: at } }
                : {}),
            },
          ];
        };
        const docOf = () =>
          incarnation === 4
            ? { DocumentIncarnation: 4, Events: [] }
            : {
                DocumentIncarnation: incarnation,
                Events: [
                  incarnation === 3
                    ? { ...ev, EventStatus: "Started" as const, NotBefore: "" }
                    : ev,
                ],
              };
        let completed = false;
        let startedAt = 0;
        // When each affected relay first sent its finished drain: the last of them is when the
        // event became ready to approve.
        const drainSentAt = new Map<number, number>();
        const deadline = Date.now() + 90_000;
        await Promise.all(
          vms.map(async (vm) => {
            while (!completed && Date.now() < deadline) {
              const hooks = hookOf(vm);
              const sentAt = performance.now();
              const a = await post(report(vm, { document: docOf(), hooks }));
              if (a && hooks[0]?.drain?.status === "succeeded" && !drainSentAt.has(vm))
                drainSentAt.set(vm, sentAt);
              const approve = (a?.directives ?? []).some((d: Directive) => d.kind === "approve");
              if (approve && incarnation === 2) {
                approvers.add(vm);
                approvedAt ??= performance.now();
                // The relay POSTs StartRequests (accepted) and reports it at once; then the
                // fabric shows the event Started to the whole group.
                await post(
                  report(vm, {
                    document: docOf(),
                    hooks,
                    approvals: [
                      {
                        eventId: ev.EventId,
                        outcome: "accepted",
                        at: new Date().toISOString(),
                        httpStatus: 200,
                      },
                    ],
                  }),
                );
                incarnation = 3;
                startedAt = Date.now();
              }
              if (incarnation === 3 && Date.now() - startedAt > 1000) incarnation = 4;
              if (incarnation === 4 && (await eventCompleted(vm))) completed = true;
              await new Promise((r) => setTimeout(r, EVENT_REPORT_MS));
            }
          }),
        );
        // Another relay's report may carry the approve directive before the last drainer's
        // answer is back, hence the lag from the last drain report sent, taken at the end.
        const lagMs =
          approvedAt !== null && drainSentAt.size === affected.length
            ? Math.max(0, approvedAt - Math.max(...drainSentAt.values()))
            : null;
        return { eventId: ev.EventId, affected, approvers, lagMs, completed };

        /** The coordinator's own view: the event Completed (read from its table). */
        async function eventCompleted(vm: number): Promise<boolean> {
          const row = await TableClient.fromConnectionString(
            azurite.connectionString,
            "quiesceEvents",
            { allowInsecureConnection: true },
          )
            .getEntity(clusterOf(vm), ev.EventId.toLowerCase())
            .catch(() => null);
          return row?.phase === "Completed";
        }
      }
    } finally {
      await front.close();
    }
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await azurite.stop();
    rmSync(keysDir, { recursive: true, force: true });
  }
}
