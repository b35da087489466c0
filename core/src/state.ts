import { type Dict, dict } from "@quiesce/protocol";
import type { ImdsProblem, VmIdentity } from "@quiesce/protocol/imds";
import type { HookRun } from "@quiesce/protocol/relay";
import type { Phase } from "@quiesce/protocol/status";
import type { ResourceDispute } from "./resources";

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
}

export interface Member {
  vmName: string;
  vm: VmIdentity;
  relayVersion: string;
  dryRun: boolean;
  /** The relay process that last reported (changes on restart). */
  bootId: string;
  /** DocumentIncarnation of the last applied document; null before the first. */
  incarnation: number | null;
  /** Keys of the events in the last applied document. */
  eventKeys: string[];
  firstSeenAt: number;
  /** Refreshed at most once per liveness granularity, so idle heartbeats cost no write. */
  lastSeenAt: number;
  /** What the relay could not read in its IMDS document (protocol 1.1); absent: nothing. */
  imdsProblems?: ImdsProblem[];
}

/** A member's lastSeenAt is rewritten only when older than this share of the liveness timeout. */
export const LIVENESS_GRANULARITY_SHARE = 1 / 3;

/**
 * Why an event may be approved before every VM drained, or that it may because they all did:
 * every drain confirmed; a written policy rule (by name); an operator's force-approve; drains
 * overdue with `onDrainOverdue: "proceed"`. Shown in the status API and counted in metrics.
 */
export type ApprovalRule = "allDrained" | "forced" | "drainOverdue" | `policy:${string}`;

export interface ApprovalLease {
  holder: string; // memberKey
  grantedAt: number;
  expiresAt: number;
  attempt: number;
}

export interface OperatorOverride {
  by: string;
  reason: string;
  at: number;
  expiresAt: number;
}

export interface EventRecord {
  key: string;
  /** As first received (Azure's case), echoed back in approve directives. */
  eventId: string;
  eventType: string;
  eventSource: string | null;
  durationInSeconds: number | null;
  description: string | null;
  resources: string[];
  /** The most advanced EventStatus any relay reported. */
  status: "Scheduled" | "Started";
  notBefore: number | null;
  phase: Phase;
  phaseSince: number;
  firstSeenAt: number;
  firstSeenBy: string;
  /** True when the first report of the event already showed it Started (no Scheduled seen). */
  firstSeenStarted: boolean;
  startedAt: number | null;
  /** When a relay that had the event reported a newer document without it. */
  leftAt: number | null;
  endedAt: number | null;
  lease: ApprovalLease | null;
  failedApprovers: string[];
  approvedAt: number | null;
  approvedBy: string | null;
  /** The rule that allowed approval. */
  approvalRule: ApprovalRule | null;
  hold: OperatorOverride | null;
  force: OperatorOverride | null;
  // Who may change Resources (resources.ts). Absent in rows written before the guard existed.
  resourcesIncarnation?: number | null;
  namedAtIncarnation?: string[];
  resourcesLeft?: { vm: string; incarnation: number }[];
  resourceDisputes?: ResourceDispute[];
}

export interface Readiness {
  vmName: string;
  /** The event is in this VM's last applied document. */
  inDocument: boolean;
  /** This VM is named in the event's Resources (as of its last applied document). */
  affected: boolean;
  drain: HookRun | null;
  recover: HookRun | null;
  firstSeenAt: number;
  updatedAt: number;
}

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
