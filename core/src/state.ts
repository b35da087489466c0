import { type Dict, dict } from "@quiesce/protocol";
import { ImdsProblem, VmIdentity } from "@quiesce/protocol/imds";
import { HookRun } from "@quiesce/protocol/relay";
import { PHASES, type Phase } from "@quiesce/protocol/status";
import { z } from "zod";

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
  holder: z.string(), // memberKey
  grantedAt: EpochMs,
  expiresAt: EpochMs,
  attempt: z.number(),
});
export type ApprovalLease = z.infer<typeof ApprovalLease>;

export const OperatorOverride = z.object({
  by: z.string(),
  reason: z.string(),
  at: EpochMs,
  expiresAt: EpochMs,
});
export type OperatorOverride = z.infer<typeof OperatorOverride>;

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
  phase: z.enum(PHASES),
  phaseSince: EpochMs,
  firstSeenAt: EpochMs,
  firstSeenBy: z.string(),
  /** True when the first report of the event already showed it Started (no Scheduled seen). */
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
});
export type EventRecord = z.infer<typeof EventRecord>;

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

/** VM names are compared without regard to case, as Azure does. */
export function memberKey(vmName: string): string {
  return vmName.toLowerCase();
}

export function emptyClusterState(cluster: string): ClusterState {
  return { cluster, members: dict(), events: dict(), readiness: dict() };
}
