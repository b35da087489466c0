import type { Clock, Logger } from "@quiesce/protocol";
import type { Notifier } from "../notify/notifier";
import type { ClusterStore, RetryOptions } from "../store";
import type { Telemetry } from "../telemetry/metrics";
import type { ChangeRecordPorts } from "./ports";
import type { RegionWatch } from "./regionWatch";

/**
 * What control-plane actions run with: a subset of the pipeline's deps (pipeline/deps.ts). The
 * notifier takes the notifications their rounds make due (an approval through Azure Resource
 * Manager is one), as every round's effects are derived (rounds/runner.ts).
 */
export interface ControlPlaneDeps {
  store: ClusterStore;
  clock: Clock;
  retry?: RetryOptions;
  telemetry: Telemetry;
  notifier: Pick<Notifier, "afterCommit">;
  /** Work that outlives the invocation that started it (follow-ups, hook runs) logs here. */
  log: Logger;
  /** Where Azure offers approval through ARM, learnt and probed (regionWatch.ts); none without ARM. */
  regions?: RegionWatch;
  /** Azure Change Safety change records, one per event (changeRecords.ts); absent: off. */
  changeRecords?: ChangeRecordPorts;
}
