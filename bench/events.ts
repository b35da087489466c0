import { createLogger } from "@quiesce/protocol";
import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { startHookedCluster, startRequestsFor, waitForPhase } from "@quiesce/testkit/cluster";
import { lastEnd } from "@quiesce/testkit/markers";
import { median, round, type Summary, summary } from "./stats";

/**
 * (a) and (b) on the whole local system (Azurite, coordinator, fabric simulator at time scale 1,
 * one real relay per VM with shell-command hooks that leave timestamped marker files), with the
 * coordinator's default policy: relays report every `activeReportSeconds` (5 s) during an event.
 *
 * (a) From the moment the last affected VM's drain hook finished (its marker file) to the fabric
 *     receiving StartRequests, as a share of the active report interval: a relay reports the
 *     moment its hook ends, and the coordinator answers that report with the approve directive
 *     when that relay is eligible (it saw the event), so the delay is a round trip, not a wait
 *     for the next heartbeat.
 * (b) From first sight (the first drain hook starting: a relay runs it the moment it sees the
 *     event) to Started, against waiting for NotBefore: the share of the notice window saved.
 */

export interface EventSample {
  eventId: string;
  resources: string[];
  lastDrainer: string;
  approver: string;
  /** (a) ms from the last drain's end to StartRequests at the fabric. */
  drainToStartRequestsMs: number;
  /** ms from the approver logging its drain's end to it posting StartRequests. */
  reportRoundTripMs?: number;
  /** (b) ms from first sight to Started, and from first sight to NotBefore. */
  firstSightToStartedMs: number;
  firstSightToNotBeforeMs: number;
  savedShare: number;
}

export interface EventsResult {
  events: number;
  noticeSeconds: number;
  drainSeconds: number[];
  activeReportSeconds: number;
  a: {
    delayMs: Summary;
    ratio: Summary;
    target: number;
    pass: boolean;
    /**
     * The round trip of the report that carried the last drain and got the approve directive:
     * from the relay logging its drain hook's end to it logging "posting StartRequests".
     */
    reportRoundTripMs?: Summary;
    /** Median delay ÷ median round trip (target ≤ 2: nothing but the round trip in between). */
    delayToRoundTrip?: number;
    roundTripTarget?: number;
  };
  b: { firstSightToStartedMs: Summary; savedShare: Summary };
  samples: EventSample[];
}

const NOTICE_SECONDS = 60;
const DRAIN_SECONDS = [0.3, 1];

export async function measureEvents(count: number): Promise<EventsResult> {
  const vms = ["web-0", "web-1", "web-2", "web-3"];
  const relayLog = new Map<string, number>();
  const { c, markers, stop } = await startHookedCluster({
    cluster: "bench",
    timeScale: 1, // NotBefore is simulated time: at 1 it is the same clock as the relays'
    topology: { groups: [{ kind: "availabilitySet", name: "avset-web", vms }] },
    // What each relay logs, with its wall-clock ms: when its drain hook ended and when it posted
    // StartRequests (the report round trip between them); BENCH_TRACE_RELAYS=1 also prints
    // every line on stderr.
    relayLogger: (vm: string) =>
      createLogger({
        level: "debug",
        sink: ({ level, msg, fields }) => {
          const at = Date.now();
          if (msg === "drain hook succeeded" && typeof fields.eventId === "string")
            relayLog.set(`drained ${vm} ${fields.eventId}`, at);
          if (msg === "posting StartRequests" && Array.isArray(fields.eventIds))
            for (const id of fields.eventIds) relayLog.set(`posting ${vm} ${id}`, at);
          if (process.env.BENCH_TRACE_RELAYS === "1")
            process.stderr.write(`trace ${at} ${vm} ${level} ${msg} ${JSON.stringify(fields)}\n`);
        },
      }),
  });
  try {
    const samples: EventSample[] = [];
    for (let i = 0; i < count; i++) {
      // Two VMs of the availability set, rotating; the second one drains longer.
      const resources = [vms[i % 4] as string, vms[(i + 1) % 4] as string];
      for (const [k, vm] of resources.entries())
        markers.setHookSeconds("drain", vm, DRAIN_SECONDS[k] as number);
      const ev = c.fabric.schedule({
        eventType: "Freeze",
        resources,
        noticeSeconds: NOTICE_SECONDS,
        durationInSeconds: 1,
        startedSeconds: 1,
      });
      await waitForPhase(c, ev.eventId, ["Completed"], 60_000);
      const fabricEvent = c.fabric.event(ev.eventId);
      const post = startRequestsFor(c.fabric, ev.eventId)[0];
      if (!fabricEvent?.startedAt || fabricEvent.notBeforeMs === null || !post)
        throw new Error(`event ${ev.eventId} was not approved`);
      const ends = resources.map((vm) => ({
        vm,
        end: lastEnd(markers.runs("drain", vm, ev.eventId)) ?? Number.NaN,
      }));
      const last = ends.reduce((a, b) => (b.end > a.end ? b : a));
      const firstSight = Math.min(
        ...resources.map((vm) => markers.runs("drain", vm, ev.eventId)[0]?.start ?? Number.NaN),
      );
      // At time scale 1 simulated and real time only differ by the simulator's start offset.
      const offset = fabricEvent.scheduledAt.simMs - fabricEvent.scheduledAt.realMs;
      const notBeforeReal = fabricEvent.notBeforeMs - offset;
      const toStarted = fabricEvent.startedAt.realMs - firstSight;
      const toNotBefore = notBeforeReal - firstSight;
      const approver = post.vm;
      const drainedAt = relayLog.get(`drained ${approver} ${ev.eventId}`);
      const postingAt = relayLog.get(`posting ${approver} ${ev.eventId}`);
      samples.push({
        eventId: ev.eventId,
        resources,
        lastDrainer: last.vm,
        approver,
        ...(approver === last.vm && drainedAt !== undefined && postingAt !== undefined
          ? { reportRoundTripMs: postingAt - drainedAt }
          : {}),
        drainToStartRequestsMs: post.at.realMs - last.end,
        firstSightToStartedMs: toStarted,
        firstSightToNotBeforeMs: toNotBefore,
        savedShare: round(1 - toStarted / toNotBefore, 4),
      });
    }
    const interval = DEFAULT_POLICY.activeReportSeconds * 1000;
    const delays = samples.map((s) => s.drainToStartRequestsMs);
    const ratio = summary(delays.map((d) => round(d / interval, 4)));
    const roundTrips = samples.flatMap((s) =>
      s.reportRoundTripMs === undefined ? [] : [s.reportRoundTripMs],
    );
    return {
      events: count,
      noticeSeconds: NOTICE_SECONDS,
      drainSeconds: DRAIN_SECONDS,
      activeReportSeconds: DEFAULT_POLICY.activeReportSeconds,
      a: {
        delayMs: summary(delays),
        ratio,
        target: 0.2,
        pass: ratio.p90 <= 0.2,
        reportRoundTripMs: summary(roundTrips),
        delayToRoundTrip: round(median(delays) / median(roundTrips), 2),
        roundTripTarget: 2,
      },
      b: {
        firstSightToStartedMs: summary(samples.map((s) => s.firstSightToStartedMs)),
        savedShare: summary(samples.map((s) => s.savedShare)),
      },
      samples,
    };
  } finally {
    await stop();
  }
}
