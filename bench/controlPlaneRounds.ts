import type { LocalCluster } from "@quiesce/demo";
import { simEvent } from "@quiesce/testkit/cluster";
import type { Markers } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { check, PremiseNotMet, premise } from "./premise";

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
/** How long a round's premise (the coordinator sees the event, every drain reported) may take. */
const PREMISE_MS = 60_000;

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
 * Ready (the release), as the coordinator's history records it. Each step stands on a condition
 * read from the coordinator, never on time: the drains cannot end before the operator's hold is
 * in place (the marker hooks wait while `markers.hold` stands), and the relays are stopped only
 * once every one has reported its drain. A premise not met ends the round as such (PremiseNotMet).
 */
export async function noRelayRound(
  c: LocalCluster,
  markers: Markers,
  group: string,
  vms: string[],
  afterSeconds: number,
  started: Set<string>,
): Promise<ControlPlaneSample> {
  for (const vm of vms) markers.hold("drain", vm);
  const ev = schedule(c, vms);
  started.add(ev.eventId);
  const id = ev.eventId;
  let held = false;
  let stopped = false;
  try {
    await premise(`the coordinator sees ${id}`, () => c.status.event(id, c.cluster), PREMISE_MS);
    await c.status.operator("hold", id, { cluster: c.cluster, reason: "bench: drain" });
    held = true;
    const h = await c.status.event(id, c.cluster);
    check(
      `${id} held before any relay could approve it`,
      h.hold !== null && h.approval.approvedAt === null && h.approval.lease === null,
      `${h.phase}, hold ${h.hold ? "on" : "off"}, lease ${h.approval.lease?.holder ?? "none"}`,
    );
    for (const vm of vms) markers.release("drain", vm);
    await premise(
      `every relay of ${group} reported its drain of ${id}`,
      async () => {
        const d = await c.status.event(id, c.cluster);
        const pending = vms.filter(
          (vm) => d.readiness.find((r) => r.vm === vm)?.drain?.status !== "succeeded",
        );
        if (pending.length === 0) return true;
        throw new Error(`${pending.join(", ")} not reported drained (${d.phase})`);
      },
      PREMISE_MS,
      100,
    );
    stopped = true;
    for (const vm of vms) await c.stopRelay(vm);
    const s = await c.status.event(id, c.cluster);
    check(
      `${id} still held and unapproved once its relays are gone`,
      s.hold !== null && s.approval.approvedAt === null && s.approval.lease === null,
      `${s.phase}, lease ${s.approval.lease?.holder ?? "none"}, approved by ${s.approval.approvedBy ?? "nobody"}`,
    );
    await c.status.operator("release", id, { cluster: c.cluster, reason: "bench: go" });
    held = false;
    const { approvedAt, sim } = await acknowledged(c, id);
    const d = await c.status.event(id, c.cluster);
    trace(d, approvedAt.realMs);
    const ready = d.timeline
      .slice(0, electionOf(d))
      .findLast((t) => t.kind === "transition" && t.to === "Ready" && t.from !== "Ready");
    if (!ready)
      throw new PremiseNotMet(`${id} Ready before the control plane's election`, "never Ready");
    const dueAt = at(ready) + afterSeconds * 1000;
    return {
      cause: "noRelay",
      group,
      eventId: id,
      dueAt,
      acknowledgedAt: approvedAt.realMs,
      delayMs: approvedAt.realMs - dueAt,
      relayLeasesLost: 0,
      ...saved(sim, approvedAt, d),
    };
  } finally {
    // Whatever happened, the group is left as found: drains free, relays running, no hold.
    for (const vm of vms) markers.release("drain", vm);
    if (stopped) for (const vm of vms) if (!c.relays.has(vm)) await c.startRelay(vm);
    if (held)
      await c.status
        .operator("release", id, { cluster: c.cluster, reason: "bench: round over" })
        .catch(() => undefined);
  }
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
  started: Set<string>,
): Promise<ControlPlaneSample> {
  for (const vm of vms) c.fabric.injectFault({ vm, route: "startrequests", status: 500 });
  const ev = schedule(c, vms.slice(0, 1));
  started.add(ev.eventId);
  const { approvedAt, sim } = await acknowledged(c, ev.eventId).finally(() => {
    for (const vm of vms) c.fabric.clearFaults(vm);
  });
  const d = await c.status.event(ev.eventId, c.cluster);
  trace(d, approvedAt.realMs);
  const before = d.timeline.slice(0, electionOf(d));
  const ends = before.filter((t) => FAILED.test(t.reason) || EXPIRED.test(t.reason));
  const last = ends.at(-1);
  if (!last)
    throw new PremiseNotMet(
      `a relay lease of ${ev.eventId} ended unconfirmed before the control plane's`,
      "the control plane was elected first",
    );
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
