import { z } from "zod";

/**
 * Azure Update Manager's scheduled patch runs beside a cluster's scheduled events
 * (docs/control-plane.md, "Guest patching"): the runs of the maintenance configurations named
 * here are read from their pre- and post-maintenance events (Event Grid). Both directions are
 * off until a configuration is named.
 */

const MaintenanceConfigurationId = z
  .string()
  .max(1024)
  .regex(
    /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Maintenance\/maintenanceConfigurations\/[^/]+$/i,
    "a maintenance configuration's ARM id",
  );

/** The name of the gate `holdApprovalsDuringPatching` adds: shown in "waiting for", forced past by name. */
export const GUEST_PATCHING_GATE = "guestPatching";

export const GuestPatching = z.strictObject({
  /** Maintenance configurations whose patch runs touch this cluster's VMs. */
  maintenanceConfigurations: z.array(MaintenanceConfigurationId).max(64).default([]),
  /**
   * A pre-maintenance event arriving while one of the cluster's events is in maintenance
   * (approved, not yet ended and recovered): "cancel" the run through ARM before its cut-off, or
   * "allow" it (default: never touch a run).
   */
  whileEventActive: z.enum(["cancel", "allow"]).default("allow"),
  /**
   * While a run of a named configuration is announced or running (from its pre-event until its
   * post-event or EndDateTime), approvals wait: a gate named `guestPatching`. Like every gate it
   * only keeps Quiesce from approving early; Azure still starts the event at NotBefore.
   */
  holdApprovalsDuringPatching: z.boolean().default(false),
});
export type GuestPatching = z.infer<typeof GuestPatching>;

/** Whether the policy asks for the guest-patching gate. */
export const holdsDuringPatching = (g: GuestPatching): boolean =>
  g.holdApprovalsDuringPatching && g.maintenanceConfigurations.length > 0;

/** The policy's gate names, the guest-patching one included when it is on. */
export function gateNames(policy: {
  gates: readonly { name: string }[];
  guestPatching: GuestPatching;
}): string[] {
  const names = policy.gates.map((g) => g.name);
  return holdsDuringPatching(policy.guestPatching) ? [...names, GUEST_PATCHING_GATE] : names;
}
