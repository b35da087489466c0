import type { ClusterState } from "@quiesce/core";
import type { Clock, Logger } from "@quiesce/protocol";
import type { Attestor } from "../attestation";
import type { ControlPlane } from "../controlPlane";
import type { GuestPatchingRuns } from "../guestPatching/service";
import type { Notifier } from "../notify/notifier";
import type { CoordinatorOptions, Policies } from "../options";
import type { ClusterStore, RetryOptions } from "../store";
import type { Telemetry } from "../telemetry/metrics";

/** What the rounds and the sweep run with (coordinator.ts builds it; the handlers add more). */
export interface PipelineDeps {
  store: ClusterStore;
  /** The settings as the code uses them (options.ts), built once at start-up. */
  options: CoordinatorOptions;
  /** The policy in force for each cluster. */
  policies: Policies;
  clock: Clock;
  retry?: RetryOptions;
  telemetry: Telemetry;
  notifier: Notifier;
  /** Safety gates and the actions through Azure Resource Manager (docs/control-plane.md). */
  controlPlane: ControlPlane;
  /** Checks attested documents (docs/auth.md); null without the control plane's ARM client. */
  attestor: Attestor | null;
  /** Update Manager's patch runs (guestPatching/service.ts); absent: their events are ignored. */
  guestPatching?: GuestPatchingRuns;
  /** After each sweep: the "maintenance active" gauges and alert processing rules (maintenanceSignal/sync.ts). */
  maintenanceSignal?: (
    ticked: ReadonlyMap<string, ClusterState>,
    log: Logger,
    skipped: readonly string[],
  ) => Promise<unknown>;
}
