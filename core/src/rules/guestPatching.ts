import {
  GUEST_PATCHING_GATE,
  type GuestPatching,
  holdsDuringPatching,
} from "@quiesce/protocol/policy";
import type { ClusterState, EventRecord } from "../model/state";
import type { GateVerdict } from "./gates";

/**
 * Azure Update Manager's patch runs beside the cluster's scheduled events, decided from state
 * alone (docs/control-plane.md, "Guest patching"): which events count as in maintenance, the
 * guest-patching gate's verdict, and whether a pre-maintenance event's run is to be cancelled.
 * The shell stores the runs (functions/src/guestPatching) and does the ARM call.
 */

/** A patch run as the coordinator knows it from its pre- and post-maintenance events. */
export interface PatchRunView {
  correlationId: string;
  /** Lower case. */
  maintenanceConfigurationId: string;
  startAt: number;
  endAt: number;
  cancelCutoffAt: number | null;
  /** When its post-maintenance event came (the run is over). */
  postAt: number | null;
  /** When Azure confirmed the cancel Quiesce asked for. */
  cancelledAt: number | null;
}

const IN_MAINTENANCE = new Set(["Started", "Recovering", "Unplanned", "ExpiredAtNotBefore"]);
const ENDED = new Set(["Completed", "Cancelled"]);

/**
 * An event whose VMs are under maintenance now: approved (or started by Azure without us) and not
 * yet ended and recovered. `Recovering` counts (the VMs are back but their recover hooks are still
 * running); `Completed` does not.
 */
export function inMaintenance(e: EventRecord): boolean {
  if (ENDED.has(e.phase)) return false;
  return e.approvedAt !== null || e.startedAt !== null || IN_MAINTENANCE.has(e.phase);
}

/**
 * What a pre-maintenance event meets: the events in maintenance, and those an approver is
 * electing right now (`Approving`: the approval may land while the run is announced).
 */
export function conflictingEvents(state: ClusterState): EventRecord[] {
  return Object.values(state.events).filter(
    (e) => inMaintenance(e) || (e.phase === "Approving" && e.lease !== null),
  );
}

const names = (g: GuestPatching, run: PatchRunView) =>
  g.maintenanceConfigurations.some((c) => c.toLowerCase() === run.maintenanceConfigurationId);

/** A run announced or running at `now`: from its pre-event until its post-event or EndDateTime, unless cancelled. */
export const runHolds = (run: PatchRunView, now: number): boolean =>
  run.cancelledAt === null && run.postAt === null && now < run.endAt;

/** The guest-patching gate's one verdict for a cluster; null when its policy has no such gate. */
export function guestPatchingVerdict(
  g: GuestPatching,
  runs: readonly PatchRunView[],
  now: number,
): GateVerdict | null {
  if (!holdsDuringPatching(g)) return null;
  const holding = runs.filter((r) => names(g, r) && runHolds(r, now));
  if (holding.length === 0)
    return { name: GUEST_PATCHING_GATE, pass: true, detail: "no patch run announced or running" };
  const detail = holding
    .map(
      (r) =>
        `patch run ${runName(r.correlationId)} of ${configurationName(r.maintenanceConfigurationId)} ${now < r.startAt ? "announced for" : "running since"} ${new Date(r.startAt).toISOString()} until ${new Date(r.endAt).toISOString()}`,
    )
    .join("; ");
  return { name: GUEST_PATCHING_GATE, pass: false, detail };
}

export type CancelDecision =
  | { cancel: true; events: EventRecord[]; reason: string }
  | { cancel: false; reason: string };

/**
 * Whether this cluster wants a run cancelled: its policy names the run's configuration with
 * `whileEventActive: "cancel"`, one of its events is in maintenance (or being approved), the run
 * is not over, not already cancelled, and its cut-off has not passed (Azure refuses a cancel then).
 */
export function decidePatchRunCancel(
  g: GuestPatching,
  state: ClusterState,
  run: PatchRunView,
  now: number,
): CancelDecision {
  if (!names(g, run)) return { cancel: false, reason: "configuration not named by this cluster" };
  if (g.whileEventActive !== "cancel")
    return { cancel: false, reason: "whileEventActive is allow" };
  if (run.cancelledAt !== null) return { cancel: false, reason: "already cancelled" };
  if (run.postAt !== null || now >= run.endAt) return { cancel: false, reason: "run already over" };
  const events = conflictingEvents(state);
  if (events.length === 0)
    return { cancel: false, reason: "no event of the cluster in maintenance" };
  if (run.cancelCutoffAt === null || now >= run.cancelCutoffAt)
    return {
      cancel: false,
      reason: `too late to cancel: cut-off ${run.cancelCutoffAt === null ? "unknown" : new Date(run.cancelCutoffAt).toISOString()} passed while ${events.map((e) => e.eventId).join(", ")} in maintenance`,
    };
  return {
    cancel: true,
    events,
    reason: `patch run ${runName(run.correlationId)} of ${configurationName(run.maintenanceConfigurationId)} cancelled: event(s) ${events.map((e) => e.eventId).join(", ")} in maintenance (policy guestPatching.whileEventActive: cancel)`,
  };
}

export const runName = (correlationId: string): string =>
  correlationId.slice(correlationId.lastIndexOf("/") + 1);
export const configurationName = (id: string): string => id.slice(id.lastIndexOf("/") + 1);
