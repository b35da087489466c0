/**
 * The words the coordinator and the status API share for where an event stands, listed once:
 * the core's state uses them and the status API's schemas (views.ts, query.ts) are built from them.
 */

/** An event's phase in the coordinator's state machine (docs/coordinator.md, "Lifecycle"). */
export const PHASES = [
  "Observed",
  "Draining",
  "Ready",
  "Approving",
  "Started",
  "Recovering",
  "Completed",
  "Cancelled",
  "Unplanned",
  "ExpiredAtNotBefore",
] as const;
export type Phase = (typeof PHASES)[number];

/** Why a VM holds up an event, in words an operator can act on. */
export const BLOCKER_REASONS = [
  "drainPending",
  "draining",
  "drainFailed",
  "noLiveRelay",
  "neverRegistered",
  "resourcesDisputed",
  "recoverPending",
  "imdsProblem",
  "loadBalancerDrain",
  /** Its drain waits for a maintenance window (policy maintenanceWindows); detail names the rule. */
  "maintenanceWindow",
] as const;
export type BlockerReason = (typeof BLOCKER_REASONS)[number];
