import type { Result } from "@quiesce/protocol";
import type { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import type { GroupRecord, Topology, VmRecord } from "../topology/topology";

/** When something happened: simulated time (what IMDS shows) and the real wall clock. */
export interface Instant {
  readonly simMs: number;
  readonly realMs: number;
}

export type EventPhase = "Scheduled" | "Started" | "Removed";
/**
 * Why an event went to Started: a VM's StartRequests, NotBefore passing, the control API, a
 * hardware failure (never Scheduled), or the group's `scheduledEventsPolicy` approving a user's
 * Reboot / Redeploy as it was created (never Scheduled either).
 */
export type StartCause = "approval" | "notBefore" | "control" | "hardwareFailure" | "autoApproved";
/** Why an event left the document: it ran its course, or Azure cancelled it while Scheduled. */
export type RemovalCause = "completed" | "cancelled";

/**
 * Who let an event proceed: a VM's StartRequests (`vm` is its name), or an acknowledge through
 * Azure Resource Manager (`vm` is `control-plane`, `principalId` the caller's identity).
 */
export interface Approval {
  readonly vm: string;
  readonly at: Instant;
  readonly principalId?: string;
}

/** The approver recorded for an acknowledge through Azure Resource Manager (the Maintenance RP). */
export const CONTROL_PLANE = "control-plane";

export interface ResourcesChange {
  readonly incarnation: number;
  readonly resources: readonly string[];
  readonly at: Instant;
}

/** One event as the fabric knows it; the document shows a projection of it to every VM of `group`. */
export interface SimEvent {
  readonly eventId: string;
  readonly group: string;
  readonly eventType: string;
  readonly resources: readonly string[];
  readonly eventSource: string;
  readonly description: string;
  readonly durationInSeconds: number;
  /** Simulated epoch ms, whole seconds (NotBefore has second precision); null when never Scheduled. */
  readonly notBeforeMs: number | null;
  /** How long the event stays Started before it leaves the document. */
  readonly startedForMs: number;
  /** Shared-host behaviour: start only once every VM in Resources approved (or at NotBefore). */
  readonly requireAllApprovals: boolean;
  readonly phase: EventPhase;
  readonly scheduledAt: Instant;
  /** Every StartRequests naming this event while it was Scheduled, in arrival order. */
  readonly approvals: readonly Approval[];
  /** The first approval (the VM whose StartRequests first named it while Scheduled). */
  readonly approvedAt?: Instant;
  readonly approvedBy?: string;
  readonly startedAt?: Instant;
  readonly startCause?: StartCause;
  /** Simulated ms at which a Started (or an advisory, never Started) event leaves the document. */
  readonly endsAtMs?: number;
  readonly removedAt?: Instant;
  readonly removalCause?: RemovalCause;
  readonly resourcesHistory: readonly ResourcesChange[];
}

export type FaultRoute = "any" | "scheduledevents" | "startrequests" | "instance" | "attested";

/** An injected IMDS misbehaviour for one VM: an error status and/or latency, for N requests or a while. */
export interface Fault {
  readonly id: number;
  readonly vm: string;
  readonly route: FaultRoute;
  readonly status?: number;
  readonly latencyMs?: number;
  /** Requests left to affect; undefined = unlimited (until `untilMs` or cleared). */
  readonly remaining?: number;
  /** Simulated ms after which the fault is over; undefined = until `remaining` runs out or cleared. */
  readonly untilMs?: number;
  readonly served: number;
}

export type StartRequestOutcome =
  | "approved" // this request started the event
  | "waitingForOthers" // recorded; requireAllApprovals still waits for other VMs in Resources
  | "alreadyStarted"
  | "advisory" // a rebalance recommendation: accepted, and it changes nothing (model/advisory.ts)
  | "unknown"; // no such event in this VM's document: Azure still answers 200

export type TimelineEntry =
  | {
      readonly seq: number;
      readonly kind: "document";
      readonly group: string;
      readonly incarnation: number;
      readonly reason: string;
      readonly eventIds: readonly string[];
      readonly document: ScheduledEventsDocument;
      readonly at: Instant;
    }
  | {
      readonly seq: number;
      readonly kind: "startRequests";
      readonly vm: string;
      readonly group: string;
      readonly eventIds: readonly string[];
      readonly outcomes: ReadonlyArray<{ eventId: string; outcome: StartRequestOutcome }>;
      readonly at: Instant;
    }
  | {
      readonly seq: number;
      /** An acknowledge through Azure Resource Manager: same outcomes as a VM's StartRequests. */
      readonly kind: "armAcknowledge";
      /** The ARM resource the call named (an availability set, a scale set or a VM). */
      readonly scope: string;
      readonly principalId: string;
      readonly eventIds: readonly string[];
      readonly outcomes: ReadonlyArray<{ eventId: string; outcome: StartRequestOutcome }>;
      readonly at: Instant;
    }
  | {
      readonly seq: number;
      readonly kind: "faultInjected" | "faultServed" | "faultsCleared" | "vmDeleted";
      readonly vm?: string;
      readonly detail: string;
      readonly at: Instant;
    };

export interface FabricOptions {
  /** Default for events that do not say: wait for every affected VM's approval (shared hosts). */
  readonly requireAllApprovals: boolean;
  /** Started lasts max(DurationInSeconds, this) before removal (Azure: often ~10 minutes). */
  readonly minStartedSeconds: number;
  readonly initialIncarnation: number;
  /** Mark VMs deleted (IMDS answers 404) once a Preempt or Terminate naming them completes. */
  readonly deleteOnEviction: boolean;
}

export interface FabricState {
  readonly options: FabricOptions;
  readonly topology: Topology;
  readonly vms: Readonly<Record<string, VmRecord>>;
  readonly groups: Readonly<Record<string, GroupRecord>>;
  /** Events still in some document (Scheduled or Started), in scheduling order. */
  readonly active: readonly SimEvent[];
  /** Events that left their document, in removal order. */
  readonly past: readonly SimEvent[];
  readonly faults: readonly Fault[];
  readonly timeline: readonly TimelineEntry[];
  readonly nextSeq: number;
  readonly nextFaultId: number;
}

/** A transition of the fabric: the new state, and what the command returns. */
export interface Transition<T> {
  readonly state: FabricState;
  readonly value: T;
}

/** Why a command changed nothing: 400 (bad input), 404 (no such thing), 409 (not now). */
export interface Refusal {
  readonly status: 400 | 404 | 409;
  readonly message: string;
}

export type Outcome<T> = Result<Transition<T>, Refusal>;
