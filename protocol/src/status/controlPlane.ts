import { z } from "zod";

/**
 * Whether Azure offers approval through Azure Resource Manager (the Maintenance RP's acknowledge)
 * where a group's VMs run (docs/control-plane.md, "Where Azure offers approval"): Azure answers
 * `405 NotImplemented` in regions where it does not. `unknown` until the coordinator's probe or a
 * real acknowledge told.
 */
export const CONTROL_PLANE_AVAILABILITY = ["available", "notAvailable", "unknown"] as const;
export const ControlPlaneAvailability = z.enum(CONTROL_PLANE_AVAILABILITY);
export type ControlPlaneAvailability = z.infer<typeof ControlPlaneAvailability>;

export const ControlPlaneApprovalView = z.object({
  availability: ControlPlaneAvailability,
  /** Azure region of the group's VMs (lower case); null while not known. */
  region: z.string().nullable(),
  /** Since when the availability holds (ISO 8601); null while unknown. */
  since: z.string().nullable(),
  /** How it was learnt: the coordinator's probe, or a real acknowledge's answer. */
  how: z.enum(["probe", "acknowledge"]).nullable(),
  /** ARM's status and code that told it (`404 InvalidScheduledEventId`, `405 NotImplemented`). */
  detail: z.string().nullable(),
  /** The group needs the control plane to approve (agentless, or no live relay under fallback). */
  relies: z.boolean(),
});
export type ControlPlaneApprovalView = z.infer<typeof ControlPlaneApprovalView>;
