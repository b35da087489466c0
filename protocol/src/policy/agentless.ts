import { z } from "zod";
import { HttpsOrLoopbackUrl } from "../url";

/**
 * What a cluster owns in Azure, and how the coordinator acts for VMs that run no relay
 * (docs/control-plane.md, "Agentless clusters"). Events published off the VM (Event Grid,
 * Resource Graph: preview, opt-in through `scheduledEventsPolicy`) are scoped to an availability
 * set, a scale set (not the instance) or a VM, so a cluster names those resources by ARM id.
 */

/** `/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Compute/{availabilitySets|virtualMachineScaleSets|virtualMachines}/{name}` */
export const ComputeScopeId = z
  .string()
  .max(1024)
  .regex(
    /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Compute\/(availabilitySets|virtualMachineScaleSets|virtualMachines)\/[^/]+$/i,
    "an availability set's, scale set's or VM's ARM resource id",
  );

/**
 * One hook the coordinator calls for a VM without a relay: the same HTTP hook a relay runs
 * (POST of `{hook, attempt, deadline, dryRun, vm, event}` as JSON; any 2xx is success), called
 * from the coordinator. `{vmName}` in the URL is replaced by the VM's name (URL-encoded).
 */
export const AgentlessHook = z.strictObject({
  url: HttpsOrLoopbackUrl,
  timeoutSeconds: z.number().int().min(1).max(300).default(120),
  /** Send a bearer token of the app's managed identity for this scope (e.g. api://x/.default). */
  bearerScope: z.string().min(1).max(512).optional(),
});
export type AgentlessHook = z.infer<typeof AgentlessHook>;

/**
 * VMs named in an event that never had a relay (no member row) are drained by the coordinator:
 * its drain hook, then the load-balancer drain when `loadBalancerDrain` is on; it calls the
 * recover hook once Azure says the event is over (Completed or Canceled). Off by default: a
 * VM without a relay otherwise blocks approval (`unmanagedVms`).
 */
export const Agentless = z.strictObject({
  enabled: z.boolean().default(false),
  drain: AgentlessHook.optional(),
  recover: AgentlessHook.optional(),
  /** Attempts per hook and VM: an attempt whose instance died counts (its claim runs out). */
  maxAttempts: z.number().int().min(1).max(10).default(3),
});
export type Agentless = z.infer<typeof Agentless>;

/**
 * What the operator set in Azure's `scheduledEventsPolicy` for this cluster's groups: with
 * `automaticallyApprove`, a user-initiated reboot or redeploy skips `Scheduled` and is first
 * seen `Started` (azure-compute-docs scheduled-events-overview.md, 05/01/2026). Used to label an
 * event first seen Started whose `EventSource` is not given.
 */
export const AzureScheduledEventsPolicy = z.strictObject({
  userInitiatedReboot: z.strictObject({ automaticallyApprove: z.boolean() }).optional(),
  userInitiatedRedeploy: z.strictObject({ automaticallyApprove: z.boolean() }).optional(),
});
export type AzureScheduledEventsPolicy = z.infer<typeof AzureScheduledEventsPolicy>;
