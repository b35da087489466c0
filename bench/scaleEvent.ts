import { TableClient } from "@azure/data-tables";
import { delay } from "@quiesce/protocol";
import type { ScheduledEvent } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import { scheduled, started } from "@quiesce/testkit/documents";
import { type Fleet, hookRun } from "@quiesce/testkit/fleet";

/**
 * One event of figure (i), its whole life driven by its group's relays, each reporting at the
 * cadence its answers ask for, `reportMs` standing for the 5 s active interval: the fabric's document goes Scheduled (incarnation 2), Started once approved (3), gone
 * (4); the affected VMs' drains finish 1 s, 1.5 s and 2 s in.
 */

const AFFECTED = 3;

/** What a report's answer says, as far as a relay of this benchmark reads it. */
export interface Answer {
  directives: Array<{ kind: string }>;
  nextReportInSeconds: number;
}

/** The default active report interval, which `reportMs` stands for. */
const ACTIVE_SECONDS = 5;

export interface EventOutcome {
  eventId: string;
  affected: number[];
  approvers: Set<number>;
  /** The last drain's report sent → an approve directive received (null if it never was). */
  lagMs: number | null;
  completed: boolean;
}

export async function runEvent(
  g: number,
  vms: number[],
  fleet: Fleet,
  post: (body: RelayReport) => Promise<Answer | null>,
  connectionString: string,
  /** How often each relay of the group reports. */
  reportMs: number,
): Promise<EventOutcome> {
  const affected = vms.slice(0, AFFECTED);
  const ev: ScheduledEvent = scheduled(
    `00000000-5CA1-4000-8000-${String(g).padStart(12, "0")}`,
    affected.map((vm) => fleet.names[vm] as string),
    { NotBefore: new Date(Date.now() + 15 * 60_000).toUTCString() },
  );
  let incarnation = 2;
  const approvers = new Set<number>();
  let approvedAt = null as number | null;
  const drainDoneAt = new Map(affected.map((vm, k) => [vm, Date.now() + 1000 + 500 * k]));
  const hookOf = (vm: number): RelayReport["hooks"] => {
    if (!affected.includes(vm)) return [];
    const drained = Date.now() >= (drainDoneAt.get(vm) ?? 0);
    return [
      {
        eventId: ev.EventId,
        drain: hookRun(drained ? "succeeded" : "running"),
        ...(incarnation === 4 ? { recover: hookRun("succeeded") } : {}),
      },
    ];
  };
  const docOf = () =>
    incarnation === 4
      ? { DocumentIncarnation: 4, Events: [] }
      : { DocumentIncarnation: incarnation, Events: [incarnation === 3 ? started(ev) : ev] };
  let completed = false;
  let startedAt = 0;
  // When each affected relay first sent its finished drain: the last of them is when the
  // event became ready to approve.
  const drainSentAt = new Map<number, number>();
  const events = TableClient.fromConnectionString(connectionString, "quiesceEvents", {
    allowInsecureConnection: true,
  });
  /** The coordinator's own view: the event Completed (read from its table). */
  const eventCompleted = async (vm: number) => {
    const row = await events
      .getEntity(fleet.clusterOf(vm), ev.EventId.toLowerCase())
      .catch(() => null);
    return row?.phase === "Completed";
  };
  const deadline = Date.now() + 90_000;
  await Promise.all(
    vms.map(async (vm) => {
      while (!completed && Date.now() < deadline) {
        const hooks = hookOf(vm);
        const sentAt = performance.now();
        const a = await post(fleet.report(vm, { document: docOf(), hooks }));
        if (a && hooks[0]?.drain?.status === "succeeded" && !drainSentAt.has(vm))
          drainSentAt.set(vm, sentAt);
        const approve = (a?.directives ?? []).some((d) => d.kind === "approve");
        if (approve && incarnation === 2) {
          approvers.add(vm);
          approvedAt ??= performance.now();
          // The relay POSTs StartRequests (accepted) and reports it at once; then the
          // fabric shows the event Started to the whole group.
          await post(
            fleet.report(vm, {
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
        // As a relay does: again when the answer asks (bystanders every 30 s, named VMs every
        // active interval, 1 s while they may take a budget), on this run's time scale; a refused
        // report again after one active interval's worth (a relay honours Retry-After: 1).
        const asked = a ? (a.nextReportInSeconds / ACTIVE_SECONDS) * reportMs : reportMs;
        await delay(Math.min(asked, 6 * reportMs));
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
}
