import { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { z } from "zod";
import type { ClockView, Timeline } from "../engine/engine";
import type { Fault, SimEvent, TimelineEntry } from "../model/types";
import type { GroupRecord, VmRecord } from "../topology/topology";

/**
 * The control API's answers, as FabricControlClient reads them from another process. Each schema
 * is typed with the model's own type, so the two cannot drift apart unnoticed.
 */

const Instant = z.object({ simMs: z.number(), realMs: z.number() });

export const SimEventAnswer: z.ZodType<SimEvent> = z.object({
  eventId: z.string(),
  group: z.string(),
  eventType: z.string(),
  resources: z.array(z.string()),
  eventSource: z.string(),
  description: z.string(),
  durationInSeconds: z.number(),
  notBeforeMs: z.number().nullable(),
  startedForMs: z.number(),
  requireAllApprovals: z.boolean(),
  phase: z.enum(["Scheduled", "Started", "Removed"]),
  scheduledAt: Instant,
  approvals: z.array(z.object({ vm: z.string(), at: Instant, principalId: z.string().optional() })),
  approvedAt: Instant.optional(),
  approvedBy: z.string().optional(),
  startedAt: Instant.optional(),
  startCause: z
    .enum(["approval", "notBefore", "control", "hardwareFailure", "autoApproved"])
    .optional(),
  endsAtMs: z.number().optional(),
  removedAt: Instant.optional(),
  removalCause: z.enum(["completed", "cancelled"]).optional(),
  resourcesHistory: z.array(
    z.object({ incarnation: z.number(), resources: z.array(z.string()), at: Instant }),
  ),
});

export const FaultAnswer: z.ZodType<Fault> = z.object({
  id: z.number(),
  vm: z.string(),
  route: z.enum(["any", "scheduledevents", "startrequests", "instance", "attested"]),
  status: z.number().optional(),
  latencyMs: z.number().optional(),
  remaining: z.number().optional(),
  untilMs: z.number().optional(),
  served: z.number(),
});

const Outcomes = z.array(
  z.object({
    eventId: z.string(),
    outcome: z.enum(["approved", "waitingForOthers", "alreadyStarted", "advisory", "unknown"]),
  }),
);

const TimelineEntryAnswer: z.ZodType<TimelineEntry> = z.union([
  z.object({
    seq: z.number(),
    kind: z.literal("document"),
    group: z.string(),
    incarnation: z.number(),
    reason: z.string(),
    eventIds: z.array(z.string()),
    document: ScheduledEventsDocument,
    at: Instant,
  }),
  z.object({
    seq: z.number(),
    kind: z.literal("startRequests"),
    vm: z.string(),
    group: z.string(),
    eventIds: z.array(z.string()),
    outcomes: Outcomes,
    at: Instant,
  }),
  z.object({
    seq: z.number(),
    kind: z.literal("armAcknowledge"),
    scope: z.string(),
    principalId: z.string(),
    eventIds: z.array(z.string()),
    outcomes: Outcomes,
    at: Instant,
  }),
  z.object({
    seq: z.number(),
    kind: z.enum(["faultInjected", "faultServed", "faultsCleared", "vmDeleted"]),
    vm: z.string().optional(),
    detail: z.string(),
    at: Instant,
  }),
]);

export const TimelineAnswer: z.ZodType<Timeline> = z.object({
  entries: z.array(TimelineEntryAnswer),
  events: z.array(SimEventAnswer),
  lastSeq: z.number(),
});

export const ClockAnswer: z.ZodType<ClockView> = z.object({
  simMs: z.number(),
  simTime: z.string(),
  realMs: z.number(),
  timeScale: z.number().nullable(),
});

const VmAnswer: z.ZodType<VmRecord & { imdsUrl: string }> = z.object({
  name: z.string(),
  group: z.string(),
  vmId: z.string(),
  resourceId: z.string(),
  subscriptionId: z.string(),
  resourceGroupName: z.string(),
  location: z.string(),
  vmScaleSetName: z.string().optional(),
  placementGroupId: z.string().optional(),
  platformFaultDomain: z.string(),
  platformUpdateDomain: z.string(),
  zone: z.string().optional(),
  computerName: z.string(),
  orchestrationMode: z.enum(["Uniform", "Flexible"]).optional(),
  deleted: z.boolean(),
  relay: z.boolean(),
  imdsUrl: z.string(),
});

const GroupAnswer: z.ZodType<GroupRecord> = z.object({
  name: z.string(),
  kind: z.enum(["availabilitySet", "scaleSetPlacementGroup", "standalone"]),
  vms: z.array(z.string()),
  scaleSetName: z.string().optional(),
  placementGroupId: z.string().optional(),
  incarnation: z.number(),
  scheduledEventsPolicy: z
    .object({
      eventGridAndResourceGraph: z.boolean(),
      userInitiatedReboot: z.object({ automaticallyApprove: z.boolean() }),
      userInitiatedRedeploy: z.object({ automaticallyApprove: z.boolean() }),
    })
    .optional(),
});

export const TopologyAnswer = z.object({ groups: z.array(GroupAnswer), vms: z.array(VmAnswer) });

export const AddedGroupsAnswer = z.object({
  vms: z.array(z.object({ name: z.string(), imdsUrl: z.string() })),
});
export const IncarnationAnswer = z.object({ group: z.string(), incarnation: z.number() });
export const ClearedAnswer = z.object({ cleared: z.number() });
export const OkAnswer = z.object({ ok: z.literal(true) });

/** A refusal: `{ error, issues? }` with 400, 404 or 409. */
export const ProblemAnswer = z.object({
  error: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
