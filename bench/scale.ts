import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TableClient } from "@azure/data-tables";
import { decodeEntity, StoredReadiness, startAzurite } from "@quiesce/functions";
import { parseJsonWith } from "@quiesce/protocol";
import type { RelayReport } from "@quiesce/protocol/relay";
import type { CoordinatorProcess } from "@quiesce/testkit/coordinator";
import { reportPoster } from "@quiesce/testkit/coordinator";
import { Fleet, vmNames } from "@quiesce/testkit/fleet";
import { startRoundRobinFront } from "@quiesce/testkit/front";
import { z } from "zod";
import { startBenchCoordinator } from "./coordinator";
import { type Answer, runEvent } from "./scaleEvent";
import { round, type Summary, summary } from "./stats";

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
const IDLE_WORKERS = 24;

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

const AnswerSchema = z.looseObject({ directives: z.array(z.looseObject({ kind: z.string() })) });

export async function measureScale(): Promise<ScaleResult> {
  const azurite = await startAzurite();
  const keysDir = mkdtempSync(join(tmpdir(), "quiesce-scale-"));
  const processes: CoordinatorProcess[] = [];
  const fleet = new Fleet({
    names: vmNames("vm-", VMS, 5),
    cluster: (i) => `scale-${String(i % CLUSTERS).padStart(2, "0")}`,
  });
  try {
    // One at a time: the first creates the shared keys, the others read them.
    for (let p = 0; p < 3; p++)
      processes.push(await startBenchCoordinator(azurite.connectionString, { keysDir }));
    const front = await startRoundRobinFront(processes.map((p) => p.url));
    try {
      const relayKey = (processes[0] as CoordinatorProcess).relayKey;
      const send = reportPoster({ url: front.url, relayKey });
      let errors = 0;
      const errorStatuses: Record<string, number> = {};
      const post = async (body: RelayReport): Promise<Answer | null> => {
        const res = await send(body).catch(() => null);
        if (res?.status !== 200) {
          errors++;
          const k = String(res?.status ?? "network");
          errorStatuses[k] = (errorStatuses[k] ?? 0) + 1;
          return null;
        }
        const answer = parseJsonWith(AnswerSchema, res.text);
        if (!answer.ok) throw new Error(`report answer: ${answer.error}`);
        return answer.value;
      };

      // Registration: every relay's first report (it writes the member row).
      const t0 = performance.now();
      let n = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (n < VMS) {
            const i = n++;
            while ((await post(fleet.report(i))) === null) {} // a refused first report is retried
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
            await post(fleet.report(i));
          }
          i = (i + IDLE_WORKERS) % VMS;
        }
      });
      const eventRuns = groups.map((vms, g) =>
        runEvent(g, vms, fleet, post, azurite.connectionString),
      );
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
            .getEntity(
              `${fleet.clusterOf(vm)}|${o.eventId.toLowerCase()}`,
              fleet.names[vm] as string,
            )
            .catch(() => null);
          const decoded = row ? decodeEntity(StoredReadiness, row) : null;
          const r = decoded?.ok ? decoded.value : null;
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
    } finally {
      await front.close();
    }
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await azurite.stop();
    rmSync(keysDir, { recursive: true, force: true });
  }
}
