import { z } from "zod";
import { VmIdentity } from "../imds/instanceMetadata";
import { ImdsProblem } from "../imds/problems";
import { Policy } from "../policy/policy";
import { ChangeRecordView } from "./changeRecord";
import { ControlPlaneApprovalView } from "./controlPlane";
import { BLOCKER_REASONS, PHASES } from "./lifecycle";

/**
 * The status API's answers, one schema per shape: the coordinator builds its answers typed from
 * these, and every client (CLI, demo, end-to-end tests, the browser page) parses with them.
 * Objects are plain `z.object`: a field a newer coordinator adds is dropped, not refused, so an
 * older client keeps working (the same promise the relay protocol makes for minor versions).
 * Times are ISO 8601 strings, durations seconds.
 */

const Time = z.string();
const OptionalTime = Time.nullable();

const PhaseView = z.enum(PHASES);

export const BlockerView = z.object({
  vm: z.string(),
  reason: z.enum(BLOCKER_REASONS),
  detail: z.string(),
});
export type BlockerView = z.infer<typeof BlockerView>;

const OverrideView = z.object({
  by: z.string(),
  reason: z.string(),
  at: Time,
  expiresAt: Time,
});

export const EventView = z.object({
  eventId: z.string(),
  cluster: z.string(),
  eventType: z.string(),
  eventSource: z.string().nullable(),
  durationInSeconds: z.number().nullable(),
  description: z.string().nullable(),
  status: z.enum(["Scheduled", "Started"]),
  phase: PhaseView,
  phaseSince: Time,
  notBefore: OptionalTime,
  resources: z.array(z.string()),
  firstSeenAt: Time,
  firstSeenBy: z.string(),
  /** First seen already Started: a user's auto-approved reboot/redeploy, or unannounced (null: it was announced). */
  startedFirst: z.enum(["userInitiated", "unannounced"]).nullable().default(null),
  /** What Azure last published of it off the VM (Event Grid, Resource Graph; null: nothing). */
  published: z
    .object({
      status: z.enum(["Scheduled", "Started", "Completed", "Canceled"]),
      source: z.enum(["eventGrid", "resourceGraph"]),
      scope: z.string(),
      receivedAt: Time,
    })
    .nullable()
    .default(null),
  /** Only advises (a Spot rebalance recommendation): never approved, never drained for. */
  advisory: z.boolean().default(false),
  startedAt: OptionalTime,
  endedAt: OptionalTime,
  approval: z.object({
    rule: z.string().nullable(),
    approvedAt: OptionalTime,
    approvedBy: z.string().nullable(),
    lease: z.object({ holder: z.string(), expiresAt: Time, attempt: z.number() }).nullable(),
    failedApprovers: z.array(z.string()),
    /** Who approved: a relay's StartRequests, or the control plane through ARM. */
    via: z.enum(["relay", "controlPlane"]).nullable().default(null),
    /** The control plane's attempts at this event (docs/control-plane.md); null: none. */
    controlPlane: z
      .object({
        attempts: z.number(),
        gaveUp: z.boolean(),
        lastError: z
          .object({
            status: z.number(),
            code: z.string(),
            message: z.string(),
            at: Time,
            /** What the answer means (core acknowledgeRefusal: eventNotFound, notSupportedInRegion, ...). */
            outcome: z.string().nullable().default(null),
          })
          .nullable(),
      })
      .nullable()
      .default(null),
  }),
  hold: OverrideView.nullable(),
  forceApprove: OverrideView.nullable(),
  /** Operators' forces past single gates. */
  gateOverrides: z.array(OverrideView.extend({ gate: z.string() })).default([]),
  waitingFor: z.string().nullable(),
  blockers: z.array(BlockerView),
  drained: z.array(z.string()),
  /** Gates failing at their last evaluation, while the event is Ready. */
  gates: z.array(z.object({ name: z.string(), detail: z.string() })).default([]),
  /** Which maintenance-window rule applied to its drain, also once it passed; null: no windows. */
  maintenanceWindow: z.string().nullable().default(null),
  /** Its Azure Change Safety change record (docs/control-plane.md); null: none. */
  changeRecord: ChangeRecordView.nullable().default(null),
});
export type EventView = z.infer<typeof EventView>;

/** What the coordinator knows of a member's attestation (docs/auth.md, "Attestation"). */
export const AttestationView = z.object({
  /** The relay process that last reported holds the binding. */
  bound: z.boolean(),
  /** The binding: the attested vmId ARM confirmed for this VM, to which relay process, when. */
  binding: z
    .object({ vmId: z.string(), bootId: z.string(), boundAt: Time, armCheckedAt: Time })
    .nullable(),
  /** Reports without the binding: from which process, since when, why. */
  unbound: z
    .object({ bootId: z.string(), since: Time, why: z.string(), canAttest: z.boolean() })
    .nullable(),
  /** A refused proof, or two relays speaking for this VM ("contested"). */
  problem: z
    .object({ code: z.string(), detail: z.string(), at: Time, bootId: z.string() })
    .nullable(),
});
export type AttestationView = z.infer<typeof AttestationView>;

export const MemberView = z.object({
  vm: z.string(),
  live: z.boolean(),
  /** lastSeenAt is refreshed at a granularity (a third of the liveness timeout that applies): an upper bound. */
  lastSeenSecondsAgo: z.number(),
  lastSeenAt: Time,
  firstSeenAt: Time,
  incarnation: z.number().nullable(),
  events: z.array(z.string()),
  relayVersion: z.string(),
  dryRun: z.boolean(),
  /**
   * What its relay could not read in its IMDS document (protocol 1.1); `document` and `event`
   * problems block approval of events naming the VM. Absent from coordinators before it.
   */
  imdsProblems: z.array(ImdsProblem).default([]),
  /** Its attestation; absent for members never challenged and from coordinators before it. */
  attestation: AttestationView.optional(),
  /** Where the VM sits, as its instance metadata says (the fields it has). */
  ...VmIdentity.pick({
    resourceId: true,
    vmScaleSetName: true,
    placementGroupId: true,
    platformUpdateDomain: true,
    platformFaultDomain: true,
    zone: true,
  }).shape,
});
export type MemberView = z.infer<typeof MemberView>;

/**
 * Where a member sits, by what its instance metadata carries. `availabilitySet` is part of the
 * shape for the day a relay can tell, but IMDS does not name a VM's availability set, so such
 * VMs show as `ungrouped` today (see docs/coordinator.md).
 */
export const GroupKind = z.enum([
  "placementGroup",
  "scaleSet",
  "zone",
  "availabilitySet",
  "ungrouped",
]);
export type GroupKind = z.infer<typeof GroupKind>;

export const GroupSummary = z.object({
  kind: GroupKind,
  name: z.string(),
  memberCount: z.number(),
  liveMembers: z.number(),
  /** Approval through Azure Resource Manager where the group runs; absent without the control plane. */
  controlPlaneApproval: ControlPlaneApprovalView.optional(),
});
export type GroupSummary = z.infer<typeof GroupSummary>;

export const ClusterSummary = z.object({
  cluster: z.string(),
  memberCount: z.number(),
  liveMembers: z.number(),
  activeEventCount: z.number(),
  groups: z.array(GroupSummary),
});
export type ClusterSummary = z.infer<typeof ClusterSummary>;

/**
 * A stored row the coordinator could not parse (docs/coordinator.md, "Unreadable rows"): left out
 * of the answer, and never trusted by a decision. The keys are the table's own, as stored.
 */
export const UnreadableRowView = z.object({
  table: z.string(),
  partitionKey: z.string(),
  rowKey: z.string(),
  /** The schema's one-line complaint, naming the field. */
  problem: z.string(),
});
export type UnreadableRowView = z.infer<typeof UnreadableRowView>;

/** The rows an answer read and could not parse; absent when all parsed, and from older coordinators. */
const UnreadableRows = z.array(UnreadableRowView).optional();

/** GET /api/status */
export const StatusPage = z.object({
  now: Time,
  clusters: z.array(ClusterSummary),
  events: z.array(EventView),
  continuation: z.string().nullable(),
  unreadableRows: UnreadableRows,
});
export type StatusPage = z.infer<typeof StatusPage>;

/** The policy in force, as the coordinator resolved it (fields it does not know are dropped). */
const PolicyView = z.object(Policy.shape);

/** GET /api/clusters/{cluster} */
export const ClusterPage = ClusterSummary.extend({
  now: Time,
  members: z.array(MemberView),
  continuation: z.string().nullable(),
  activeEvents: z.array(EventView),
  recentEndedEvents: z.array(EventView),
  policy: PolicyView,
  unreadableRows: UnreadableRows,
});
export type ClusterPage = z.infer<typeof ClusterPage>;

export const HookRunView = z.object({
  status: z.enum(["running", "succeeded", "failed", "interrupted"]),
  attempt: z.number(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  detail: z.string().optional(),
});

export const ReadinessView = z.object({
  vm: z.string(),
  inDocument: z.boolean(),
  affected: z.boolean(),
  drain: HookRunView.nullable(),
  recover: HookRunView.nullable(),
  updatedAt: Time,
  /** Load-balancer drain of this VM for this event (policy loadBalancerDrain); null: none. */
  loadBalancer: z
    .object({
      state: z.string(),
      since: Time,
      downAt: OptionalTime,
      error: z.string().nullable(),
      pools: z.array(
        z.object({ poolId: z.string(), ipConfigurationId: z.string(), previous: z.string() }),
      ),
    })
    .nullable()
    .default(null),
});
export type ReadinessView = z.infer<typeof ReadinessView>;

export const TimelineEntry = z.object({
  at: Time,
  kind: z.enum(["transition", "operator"]),
  /** Transitions: the phases. */
  from: z.string().nullable().optional(),
  to: z.string().optional(),
  /** Operator actions: hold, release, forceApprove. */
  action: z.string().optional(),
  reason: z.string(),
  vm: z.string().optional(),
  by: z.string().optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

/** GET /api/events/{eventId} (the operator routes answer it with `replaced`: OperatorAnswer). */
export const EventDetail = EventView.extend({
  now: Time,
  readiness: z.array(ReadinessView),
  /** Oldest first; at most the newest TIMELINE_MAX entries. */
  timeline: z.array(TimelineEntry),
  /** True when older entries were left out. */
  timelineTruncated: z.boolean(),
  unreadableRows: UnreadableRows,
});
export type EventDetail = z.infer<typeof EventDetail>;

/**
 * The operator routes' answer: the event as it now stands, and the hold or force-approve the
 * action replaced (a hold, a force-approve with `replace`) or removed (a release); null: none.
 */
export const OperatorAnswer = EventDetail.extend({
  replaced: OverrideView.extend({ kind: z.enum(["hold", "forceApprove"]) })
    .nullable()
    .default(null),
});
export type OperatorAnswer = z.infer<typeof OperatorAnswer>;
