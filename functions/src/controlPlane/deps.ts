import type { Clock } from "@quiesce/protocol";
import type { ClusterStore, RetryOptions } from "../store";
import type { Telemetry } from "../telemetry/metrics";

/** What control-plane actions run with: a subset of the pipeline's deps (pipeline/deps.ts). */
export interface ControlPlaneDeps {
  store: ClusterStore;
  clock: Clock;
  retry?: RetryOptions;
  telemetry: Telemetry;
}
