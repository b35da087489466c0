import { EventIdText } from "@quiesce/protocol";
import { z } from "zod";
import { GroupName, GroupSpec, SimVmName } from "../topology/topology";

/** The control API's inputs; the HTTP routes and the in-process API parse with the same schemas. */

export const ScheduleEvent = z.strictObject({
  /** Generated (a UUID) when absent. Azure captures show both cases; ids are matched case-insensitively. */
  eventId: EventIdText.optional(),
  /**
   * Freeze, Reboot, Redeploy, Preempt, Terminate, SpotRebalanceRecommendation (advisory: served
   * only at api-version 2024-07-09, never Started; model/advisory.ts), or any other word to test
   * unknown types.
   */
  eventType: z.string().regex(/^[A-Za-z]{1,64}$/, "eventType must be a word such as Reboot"),
  /** The group whose VMs all see the event; inferred from `resources` when absent. */
  group: GroupName.optional(),
  /** VMs the event affects; all VMs of `group` when absent. */
  resources: z.array(SimVmName).min(1).max(1000).optional(),
  eventSource: z.enum(["Platform", "User"]).default("Platform"),
  description: z.string().max(4096).optional(),
  /** Seconds (simulated) from now to NotBefore; Azure's minimum for the type when absent. */
  noticeSeconds: z
    .number()
    .min(0)
    .max(30 * 86_400)
    .optional(),
  /**
   * DurationInSeconds shown in the document: -1 unknown, 0 no impact, N seconds. An advisory event
   * leaves the document after N seconds (at its NotBefore when not positive).
   */
  durationInSeconds: z.number().int().min(-1).max(86_400).optional(),
  /** How long (simulated) the event stays Started before removal; default max(duration, minStartedSeconds). */
  startedSeconds: z.number().min(0).max(86_400).optional(),
  /** Hardware failure: the event appears already Started, never Scheduled. */
  startImmediately: z.boolean().default(false),
  requireAllApprovals: z.boolean().optional(),
});
export type ScheduleEvent = z.infer<typeof ScheduleEvent>;
export type ScheduleEventInput = z.input<typeof ScheduleEvent>;

export const EventRef = z.strictObject({ eventId: EventIdText });

/** Delete instances of a scale set: one Terminate per VM, all with the same NotBefore. */
export const DeleteInstances = z.strictObject({
  scaleSet: GroupName,
  vms: z.array(SimVmName).min(1).max(1000),
  /** Seconds (simulated) to NotBefore: the terminate notification's `notBeforeTimeout` (5 min). */
  noticeSeconds: z.number().min(0).max(86_400).optional(),
  /** Azure does not say which source a delete shows; Platform unless told (assumed). */
  eventSource: z.enum(["Platform", "User"]).default("Platform"),
});
export type DeleteInstances = z.infer<typeof DeleteInstances>;
export type DeleteInstancesInput = z.input<typeof DeleteInstances>;

export const ChangeResources = z.strictObject({
  eventId: EventIdText,
  resources: z.array(SimVmName).min(1).max(1000),
});
export type ChangeResources = z.infer<typeof ChangeResources>;

export const JumpIncarnation = z.strictObject({
  group: GroupName,
  by: z.number().int().min(1).max(1_000_000).default(1),
});
export type JumpIncarnation = z.infer<typeof JumpIncarnation>;
export type JumpIncarnationInput = z.input<typeof JumpIncarnation>;

export const InjectFault = z
  .strictObject({
    vm: SimVmName.optional(),
    /** Every VM of this group. */
    group: GroupName.optional(),
    /** Which IMDS requests misbehave. */
    route: z
      .enum(["any", "scheduledevents", "startrequests", "instance", "attested"])
      .default("any"),
    /** 410 Gone, 429 Too Many Requests, 500 / 503 as IMDS answers under trouble. */
    status: z.union([z.literal(410), z.literal(429), z.literal(500), z.literal(503)]).optional(),
    /** Real milliseconds added before the answer. */
    latencyMs: z.number().int().min(1).max(120_000).optional(),
    /** Affect this many requests (per VM). */
    count: z.number().int().min(1).max(1_000_000).optional(),
    /** Affect requests for this many simulated seconds. */
    durationSeconds: z
      .number()
      .min(0)
      .max(30 * 86_400)
      .optional(),
  })
  .refine((f) => f.vm !== undefined || f.group !== undefined, {
    message: "name a vm or a group",
  })
  .refine((f) => f.status !== undefined || f.latencyMs !== undefined, {
    message: "give a status, a latencyMs, or both",
  });
export type InjectFault = z.infer<typeof InjectFault>;
export type InjectFaultInput = z.input<typeof InjectFault>;

export const ClearFaults = z.strictObject({ vm: SimVmName.optional() });

export const AdvanceClock = z.strictObject({
  seconds: z
    .number()
    .min(0)
    .max(365 * 86_400),
});

export const AddGroups = z.strictObject({ groups: z.array(GroupSpec).min(1).max(10_000) });
