import { z } from "zod";

/**
 * A group's `scheduledEventsPolicy`, as Compute (2025-04-01 and later) sets it on an availability
 * set, a scale set or a VM; one per group, since a member of a set cannot have its own
 * (azure-control-plane-facts.md §1.5). Every part is off unless the topology turns it on, so
 * existing topologies behave as before:
 * - `scheduledEventsAdditionalPublishingTargets.eventGridAndResourceGraph.enable` (or the
 *   shorthand `eventGridAndResourceGraph: true`): the group's events are also published off the
 *   VM, to Event Grid (see `eventGrid/`) and Resource Graph;
 * - `userInitiatedReboot` / `userInitiatedRedeploy` `{automaticallyApprove: true}`: a user's
 *   restart or redeploy never shows Scheduled ("only events with EventStatus:Started and
 *   EventStatus:Completed are created").
 */

const AutoApprove = z.strictObject({ automaticallyApprove: z.boolean() });

export const ScheduledEventsPolicySpec = z
  .strictObject({
    /** Shorthand for `scheduledEventsAdditionalPublishingTargets.eventGridAndResourceGraph.enable`. */
    eventGridAndResourceGraph: z.boolean().optional(),
    scheduledEventsAdditionalPublishingTargets: z
      .strictObject({
        eventGridAndResourceGraph: z.strictObject({
          enable: z.boolean(),
          /** "During the preview, the only supported value is 2020-07-01". */
          scheduledEventsApiVersion: z.literal("2020-07-01").optional(),
        }),
      })
      .optional(),
    userInitiatedReboot: AutoApprove.optional(),
    userInitiatedRedeploy: AutoApprove.optional(),
  })
  .refine(
    (p) =>
      p.eventGridAndResourceGraph === undefined ||
      p.scheduledEventsAdditionalPublishingTargets === undefined,
    { message: "give eventGridAndResourceGraph or scheduledEventsAdditionalPublishingTargets" },
  );
export type ScheduledEventsPolicySpec = z.input<typeof ScheduledEventsPolicySpec>;

/** What every group spec may add: its policy, and whether its VMs run a relay. */
export const GroupPolicyFields = {
  scheduledEventsPolicy: ScheduledEventsPolicySpec.optional(),
  /** false: no VM of the group runs a relay (a VM's own `relay` wins). Default true. */
  relays: z.boolean().optional(),
};

/** The policy as the group record keeps it: every switch spelled out. */
export interface ScheduledEventsPolicy {
  readonly eventGridAndResourceGraph: boolean;
  readonly userInitiatedReboot: { readonly automaticallyApprove: boolean };
  readonly userInitiatedRedeploy: { readonly automaticallyApprove: boolean };
}

export function scheduledEventsPolicyOf(
  spec: z.output<typeof ScheduledEventsPolicySpec> | undefined,
): ScheduledEventsPolicy | undefined {
  if (!spec) return undefined;
  return {
    eventGridAndResourceGraph:
      spec.eventGridAndResourceGraph ??
      spec.scheduledEventsAdditionalPublishingTargets?.eventGridAndResourceGraph.enable ??
      false,
    userInitiatedReboot: {
      automaticallyApprove: spec.userInitiatedReboot?.automaticallyApprove ?? false,
    },
    userInitiatedRedeploy: {
      automaticallyApprove: spec.userInitiatedRedeploy?.automaticallyApprove ?? false,
    },
  };
}

/** Whether Azure approves this event itself when it is created (it then never shows Scheduled). */
export function approvedAutomatically(
  policy: ScheduledEventsPolicy | undefined,
  eventType: string,
  eventSource: string,
): boolean {
  if (!policy || eventSource !== "User") return false;
  if (eventType === "Reboot") return policy.userInitiatedReboot.automaticallyApprove;
  if (eventType === "Redeploy") return policy.userInitiatedRedeploy.automaticallyApprove;
  return false;
}

/** Whether the group's events go to Event Grid and Resource Graph as well as to IMDS. */
export const publishesOffVm = (policy: ScheduledEventsPolicy | undefined): boolean =>
  policy?.eventGridAndResourceGraph === true;
