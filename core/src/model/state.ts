import { type Dict, dict } from "@quiesce/protocol";
import { ImdsProblem, VmIdentity } from "@quiesce/protocol/imds";
import { HookRun } from "@quiesce/protocol/relay";
import { PHASES, type Phase } from "@quiesce/protocol/status";
import { z } from "zod";
import { MemberAttestation } from "./attestationState";
import { ChangeRecordState } from "./changeRecordState";
import { PublishedView } from "./publishedView";

/**
 * The coordinator's state for one cluster, as the pure core sees it. Times are epoch ms.
 *
 * Contract with the shells: the core never mutates its input. An entity it changes comes back
 * as a new object; an entity it leaves alone comes back as the very same object. The store
 * writes exactly the entities whose reference changed, so "what to persist" needs no diffing.
 *
 * The shell may load a partial state (only the members and events a report concerns); the core
 * treats a missing member as "no live relay" and never invents entities it was not given,
 * except the reporter's own member and readiness rows and events first seen in a report.
 */
export interface ClusterState {
  cluster: string;
  /** Keyed by memberKey(vmName). Every keyed record here is a null-prototype Dict (dict.ts). */
  members: Dict<Member>;
  /** Keyed by eventKey(EventId). */
  events: Dict<EventRecord>;
  /** readiness[eventKey][memberKey]: one VM's view of one event. */
  readiness: Dict<Dict<Readiness>>;
  /**
   * Events whose stored row does not parse, keyed by eventKey (the store says so; absent: none).
   * Quarantined: the core neither creates, updates nor approves them, since a record rebuilt from
   * one report would lose the lease, an operator's hold and the Resources guard; and one not known
   * to have ended holds a share of maxEventsInFlight (Azure may have started it). Lifted when the
   * row reads again (rewritten by a coordinator that can read it) or an operator deletes it.
   */
  unreadableEvents?: Dict<UnreadableEvent>;
  /**
   * Members whose stored row does not parse, keyed by memberKey, with the schema's complaint.
   * Left out of `members`; while the policy blocks on unmanaged VMs, such a VM blocks approval
   * even if drained (what its row says of its IMDS problems is unknown). Its own next report
   * writes a fresh row, which takes precedence.
   */
  unreadableMembers?: Dict<string>;
}

/** What is known of an event whose row does not parse: its plain columns, when they read. */
export interface UnreadableEvent {
  /** The row's `ended` column is true: it holds no share of the budget. */
  ended: boolean;
  /** The schema's complaint, for operators. */
  problem: string;
}

/**
 * The rows the store keeps (Members, Events, Readiness) are zod schemas, and their types are
 * inferred from them: the store parses every row it reads back (functions/src/store), as it
 * parses every other input. They describe every row a released coordinator wrote: a field added
 * later is optional ("absent in rows written before ..."), and a new one must be too.
 * Values that came from a relay's report reuse the protocol's schemas (VmIdentity, HookRun,
 * ImdsProblem): they passed them when written. Fields are listed in the order the core builds
 * them (observe.ts): a parsed row is rewritten as the same JSON text.
 */
const EpochMs = z.number();

export const Member = z.object({
  vmName: z.string(),
  vm: VmIdentity,
  relayVersion: z.string(),
  dryRun: z.boolean(),
  /** The relay process that last reported (changes on restart). */
  bootId: z.string(),
  /** DocumentIncarnation of the last applied document; null before the first. */
  incarnation: z.number().nullable(),
  /** Keys of the events in the last applied document. */
  eventKeys: z.array(z.string()),
  firstSeenAt: EpochMs,
  /** Refreshed at most once per liveness granularity, so idle heartbeats cost no write. */
  lastSeenAt: EpochMs,
  /** What the relay could not read in its IMDS document (protocol 1.1); absent: nothing. */
  imdsProblems: z.array(ImdsProblem).optional(),
  /** Its attestation (attestation.ts); absent before the first challenge. */
  attestation: MemberAttestation.optional(),
});
export type Member = z.infer<typeof Member>;

/** A member's lastSeenAt is rewritten only when older than this share of the liveness timeout. */
export const LIVENESS_GRANULARITY_SHARE = 1 / 3;

/**
 * Why an event may be approved before every VM drained, or that it may because they all did:
 * every drain confirmed; a written policy rule (by name); an operator's force-approve; drains
 * overdue with `onDrainOverdue: "proceed"`. Shown in the status API and counted in metrics.
 */
export const ApprovalRule = z.union([
  z.enum(["allDrained", "forced", "drainOverdue"]),
  z.templateLiteral(["policy:", z.string()]),
]);
export type ApprovalRule = z.infer<typeof ApprovalRule>;

export const ApprovalLease = z.object({
  holder: z.string(), // memberKey, or CONTROL_PLANE when `via` says so
  grantedAt: EpochMs,
  expiresAt: EpochMs,
  attempt: z.number(),
  /** The coordinator itself holds it, to acknowledge through ARM (absent: a relay). */
  via: z.literal("controlPlane").optional(),
});
export type ApprovalLease = z.infer<typeof ApprovalLease>;

export const OperatorOverride = z.object({
  by: z.string(),
  reason: z.string(),
  at: EpochMs,
  expiresAt: EpochMs,
});
export type OperatorOverride = z.infer<typeof OperatorOverride>;

/** What the control plane is recorded as (approvedBy, lease holder); never a memberKey (`via`). */
export const CONTROL_PLANE = "control-plane";

/** An Azure Resource Manager call that failed, as ARM said it (status and error.code). */
export const ArmFailure = z.object({
  status: z.number(),
  code: z.string(),
  message: z.string(),
  at: EpochMs,
});
export type ArmFailure = z.infer<typeof ArmFailure>;

/** The control plane's approval of one event (controlPlane.ts). */
export const ControlPlaneRecord = z.object({
  /** Leases the control plane was given for this event. */
  attempts: z.number(),
  /** When the instance holding the current lease claimed the call (null: not yet). */
  claimedAt: EpochMs.nullable(),
  lastError: ArmFailure.nullable(),
  /** No more attempts for this event: maxAttempts reached or ARM refused for good. */
  gaveUp: z.boolean(),
});
export type ControlPlaneRecord = z.infer<typeof ControlPlaneRecord>;

/** A gate that keeps a Ready event from being approved (gates.ts). */
export const FailingGate = z.object({ name: z.string(), detail: z.string() });
export type FailingGate = z.infer<typeof FailingGate>;

/** An operator's force past one gate for one event. */
export const GateOverride = OperatorOverride.extend({ gate: z.string() });
export type GateOverride = z.infer<typeof GateOverride>;

/** A VM kept in Resources because views of one incarnation disagree about it (resources.ts). */
export const ResourceDispute = z.object({
  vm: z.string(),
  /** A relay whose document names the VM. */
  namedBy: z.string(),
  incarnation: z.number(),
});
export type ResourceDispute = z.infer<typeof ResourceDispute>;

export const EventRecord = z.object({
  key: z.string(),
  /** As first received (Azure's case), echoed back in approve directives. */
  eventId: z.string(),
  eventType: z.string(),
  eventSource: z.string().nullable(),
  durationInSeconds: z.number().nullable(),
  description: z.string().nullable(),
  resources: z.array(z.string()),
  // Who may change Resources (resources.ts). Absent in rows written before the guard existed.
  resourcesIncarnation: z.number().nullable().optional(),
  namedAtIncarnation: z.array(z.string()).optional(),
  resourcesLeft: z.array(z.object({ vm: z.string(), incarnation: z.number() })).optional(),
  resourceDisputes: z.array(ResourceDispute).optional(),
  /** The most advanced EventStatus any relay reported. */
  status: z.enum(["Scheduled", "Started"]),
  notBefore: EpochMs.nullable(),
  /**
   * Who gave `notBefore`: a relay's document (the authority once one did) or the newest Scheduled
   * delivery Azure published (published.ts). Absent in rows of earlier releases (observe.ts).
   */
  notBeforeFrom: z.enum(["relay", "published"]).optional(),
  phase: z.enum(PHASES),
  phaseSince: EpochMs,
  firstSeenAt: EpochMs,
  firstSeenBy: z.string(),
  /** Seen Started (or Completed) and no source ever showed it Scheduled (or Canceled): unannounced. */
  firstSeenStarted: z.boolean(),
  startedAt: EpochMs.nullable(),
  /** When a relay that had the event reported a newer document without it. */
  leftAt: EpochMs.nullable(),
  endedAt: EpochMs.nullable(),
  lease: ApprovalLease.nullable(),
  failedApprovers: z.array(z.string()),
  approvedAt: EpochMs.nullable(),
  approvedBy: z.string().nullable(),
  /** The rule that allowed approval. */
  approvalRule: ApprovalRule.nullable(),
  hold: OperatorOverride.nullable(),
  force: OperatorOverride.nullable(),
  // Control plane (issue 17); absent in rows written before it.
  approvedVia: z.literal("controlPlane").optional(),
  controlPlane: ControlPlaneRecord.optional(),
  /** Gates failing at the last evaluation while the event was Ready (null: none). */
  gates: z
    .object({ failing: z.array(FailingGate), since: EpochMs })
    .nullable()
    .optional(),
  gateOverrides: z.array(GateOverride).optional(),
  /** What Event Grid or Resource Graph last said of it (publishedView.ts); absent: nothing. */
  published: PublishedView.optional(),
  /** Its Azure Change Safety change record (changeRecordState.ts); absent: none. */
  changeRecord: ChangeRecordState.optional(),
});
export type EventRecord = z.infer<typeof EventRecord>;

export const ADMIN_STATES = ["None", "Up", "Down"] as const;
export type AdminState = (typeof ADMIN_STATES)[number];

/** One backend address of the VM in one Azure Load Balancer pool, and its admin state before us. */
export const BackendMembership = z.object({
  poolId: z.string(),
  ipConfigurationId: z.string(),
  previous: z.enum(ADMIN_STATES),
});
export type BackendMembership = z.infer<typeof BackendMembership>;

/**
 * The load-balancer drain of one VM for one event (loadBalancer.ts). Written before each ARM
 * write (goingDown, restoring) and after it (down, restored), so a coordinator that crashed in
 * between finishes the step from storage: the previous admin states are never lost.
 */
export const LoadBalancerStep = z.object({
  state: z.enum([
    "goingDown",
    "down",
    "notInLoadBalancer",
    "failed",
    "restoring",
    "restored",
    /** Another event of the VM holds it Down and restores it (handedTo). */
    "handedOver",
    /** The VM was deleted with its event (Preempt, Terminate): nothing to restore. */
    "gone",
  ]),
  pools: z.array(BackendMembership),
  since: EpochMs,
  downAt: EpochMs.nullable(),
  /** An ARM failure of the last attempt (state failed, or a restore to retry). */
  error: z.string().nullable(),
  handedTo: z.string().nullable().optional(),
});
export type LoadBalancerStep = z.infer<typeof LoadBalancerStep>;

export const Readiness = z.object({
  vmName: z.string(),
  /** The event is in this VM's last applied document. */
  inDocument: z.boolean(),
  /** This VM is named in the event's Resources (as of its last applied document). */
  affected: z.boolean(),
  drain: HookRun.nullable(),
  recover: HookRun.nullable(),
  firstSeenAt: EpochMs,
  updatedAt: EpochMs,
  /** Load-balancer drain (policy loadBalancerDrain); absent: none done. */
  loadBalancer: LoadBalancerStep.optional(),
});
export type Readiness = z.infer<typeof Readiness>;

export interface Transition {
  eventKey: string;
  at: number;
  from: Phase | null;
  to: Phase;
  reason: string;
  vm?: string;
}

/**
 * Whether the relay of member `mk` holds the event's lease: never when the control plane does,
 * whatever a VM is named (its lease's holder is the word `control-plane`).
 */
export function relayHoldsLease(e: EventRecord, mk: string): boolean {
  return e.lease !== null && e.lease.via === undefined && e.lease.holder === mk;
}

/** VM names are compared without regard to case, as Azure does. */
export function memberKey(vmName: string): string {
  return vmName.toLowerCase();
}

export function emptyClusterState(cluster: string): ClusterState {
  return { cluster, members: dict(), events: dict(), readiness: dict() };
}
