import type { LocalCluster } from "@quiesce/demo";
import { simEvent } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";

/**
 * One round of the control-plane figure (bench/controlPlane.ts) on its own availability set of
 * two VMs: an event that no relay can approve, approved by the coordinator through the fabric's
 * Azure Resource Manager. What is timed comes from the coordinator's own history of the event
 * (when the fallback became due) and the fabric (when the acknowledge reached it), both on this
 * process's wall clock.
 */

export type Cause = "noRelay" | "cutOff";

export interface ControlPlaneSample {
  cause: Cause;
  group: string;
  eventId: string;
  /** Real ms: when the fallback became due, and when the fabric recorded the acknowledge. */
  dueAt: number;
  acknowledgedAt: number;
  delayMs: number;
  /** Relay leases that ended unconfirmed before the control plane took over (cutOff). */
  relayLeasesLost: number;
  /** What ended the last relay lease (cutOff): the relay's failure report, or its expiry. */
  leaseEnded?: "failureReported" | "expired";
  /** (NotBefore − approval) ÷ (NotBefore − first sight), simulated time (= real at scale 1). */
  savedShare: number;
  firstSightToApprovalMs: number;
}

const NOTICE_SECONDS = 900;
const TIMEOUT_MS = 180_000;

type Detail = Awaited<ReturnType<LocalCluster["status"]["event"]>>;
type Entry = Detail["timeline"][number];

const at = (t: Entry) => Date.parse(t.at);

/** BENCH_TRACE_CONTROL_PLANE=1: each round's history as the coordinator wrote it, and the acknowledge. */
function trace(d: Detail, acknowledgedAt: number) {
  if (!process.env.BENCH_TRACE_CONTROL_PLANE) return;
  const lines = d.timeline.map(
    (t) => `  ${t.at} ${t.from ?? ""} -> ${t.to ?? t.action}: ${t.reason}`,
  );
  process.stderr.write(
    `${d.eventId}:\n${lines.join("\n")}\n  ${new Date(acknowledgedAt).toISOString()} acknowledge at the fabric\n`,
  );
}

/** The history entry that gave the control plane the lease; throws when it never got one. */
function electionOf(d: Detail): number {
  const i = d.timeline.findIndex(
    (t) => t.to === "Approving" && t.reason.startsWith("control plane elected approver"),
  );
  if (i < 0) throw new Error(`${d.eventId}: the control plane was never elected`);
  return i;
}

function schedule(c: LocalCluster, resources: string[]) {
  return c.fabric.schedule({
    eventType: "Freeze",
    resources,
    noticeSeconds: NOTICE_SECONDS,
    durationInSeconds: 1,
    startedSeconds: 1,
  });
}

async function acknowledged(c: LocalCluster, eventId: string) {
  const approvedAt = await waitFor(
    `${eventId} approved at the fabric`,
    () => simEvent(c.fabric, eventId).approvedAt,
    TIMEOUT_MS,
    20,
  ).catch(async (e: unknown) => {
    // Say what the coordinator was waiting for, and its last words on the event.
    const d = await c.status.event(eventId, c.cluster).catch(() => null);
    const last = d?.timeline
      .slice(-6)
      .map((t) => `${t.at} ${t.to ?? t.action}: ${t.reason}`)
      .join("\n  ");
    throw new Error(
      `${(e as Error).message}: ${d?.phase}, waiting for ${d?.waitingFor}\n  ${last}`,
    );
  });
  const sim = simEvent(c.fabric, eventId);
  if (sim.approvedBy !== "control-plane")
    throw new Error(`${eventId} was approved by ${sim.approvedBy}, not the control plane`);
  return { approvedAt, sim };
}

/** The share of the notice window still saved, and first sight → approval, from both clocks. */
function saved(
  sim: ReturnType<typeof simEvent>,
  approvedAt: { simMs: number; realMs: number },
  d: Detail,
) {
  // The fabric's simulated clock runs at scale 1 from its own start: one offset maps real to sim.
  const offset = sim.scheduledAt.simMs - sim.scheduledAt.realMs;
  const firstSight = Date.parse(d.firstSeenAt) + offset;
  const notBefore = sim.notBeforeMs ?? Number.NaN;
  return {
    savedShare: (notBefore - approvedAt.simMs) / (notBefore - firstSight),
    firstSightToApprovalMs: approvedAt.simMs - firstSight,
  };
}

/**
 * The group's relays die after draining (held by an operator while they drain, stopped, then
 * released): the event is Ready with no relay to elect. Due: `afterSeconds` after it turned
 * Ready (the release), as the coordinator's history records it.
 */
export async function noRelayRound(
  c: LocalCluster,
  group: string,
  vms: string[],
  afterSeconds: number,
): Promise<ControlPlaneSample> {
  const ev = schedule(c, vms);
  await waitFor("the coordinator to see it", () => c.status.event(ev.eventId, c.cluster), 30_000);
  await c.status.operator("hold", ev.eventId, { cluster: c.cluster, reason: "bench: drain" });
  await waitFor(
    `${vms.join(", ")} drained`,
    async () => {
      const d = await c.status.event(ev.eventId, c.cluster);
      return vms.every((vm) => d.readiness.find((r) => r.vm === vm)?.drain?.status === "succeeded");
    },
    30_000,
    100,
  );
  for (const vm of vms) await c.stopRelay(vm);
  await c.status.operator("release", ev.eventId, { cluster: c.cluster, reason: "bench: go" });
  const { approvedAt, sim } = await acknowledged(c, ev.eventId);
  for (const vm of vms) await c.startRelay(vm);
  const d = await c.status.event(ev.eventId, c.cluster);
  trace(d, approvedAt.realMs);
  const ready = d.timeline
    .slice(0, electionOf(d))
    .findLast((t) => t.kind === "transition" && t.to === "Ready" && t.from !== "Ready");
  if (!ready) throw new Error(`${ev.eventId}: never Ready before the control plane's election`);
  const dueAt = at(ready) + afterSeconds * 1000;
  return {
    cause: "noRelay",
    group,
    eventId: ev.eventId,
    dueAt,
    acknowledgedAt: approvedAt.realMs,
    delayMs: approvedAt.realMs - dueAt,
    relayLeasesLost: 0,
    ...saved(sim, approvedAt, d),
  };
}

const FAILED = /^StartRequests (failed|rejected) at /;
const EXPIRED = /^approval lease of .* expired without a confirmed StartRequests/;

/**
 * Every VM of the group is cut off from IMDS's StartRequests (an injected HTTP 500): each relay
 * elected fails and its lease ends unconfirmed. Due: when the last relay lease ended (its
 * relay's failure report, or the lease's expiry when none came).
 */
export async function cutOffRound(
  c: LocalCluster,
  group: string,
  vms: string[],
  approvalLeaseSeconds: number,
): Promise<ControlPlaneSample> {
  for (const vm of vms) c.fabric.injectFault({ vm, route: "startrequests", status: 500 });
  const ev = schedule(c, vms.slice(0, 1));
  const { approvedAt, sim } = await acknowledged(c, ev.eventId).finally(() => {
    for (const vm of vms) c.fabric.clearFaults(vm);
  });
  const d = await c.status.event(ev.eventId, c.cluster);
  trace(d, approvedAt.realMs);
  const before = d.timeline.slice(0, electionOf(d));
  const ends = before.filter((t) => FAILED.test(t.reason) || EXPIRED.test(t.reason));
  const last = ends.at(-1);
  if (!last) throw new Error(`${ev.eventId}: no relay lease ended before the control plane's`);
  let dueAt = at(last);
  if (EXPIRED.test(last.reason)) {
    // Noted by the round that saw it; the lease ran out at its grant plus the lease time.
    const grant = before.findLast((t) => t.to === "Approving" && t.reason.includes("elected"));
    if (grant) dueAt = at(grant) + approvalLeaseSeconds * 1000;
  }
  return {
    cause: "cutOff",
    group,
    eventId: ev.eventId,
    dueAt,
    acknowledgedAt: approvedAt.realMs,
    delayMs: approvedAt.realMs - dueAt,
    relayLeasesLost: ends.length,
    leaseEnded: EXPIRED.test(last.reason) ? "expired" : "failureReported",
    ...saved(sim, approvedAt, d),
  };
}
