import type { Clock } from "@quiesce/protocol";
import type { CoordinatorSettings } from "../config";
import type { ClusterStore } from "../store";

/** What the status reads need of the coordinator: its store, its clock and its settings (policies). */
export interface StatusDeps {
  store: ClusterStore;
  clock: Clock;
  settings: CoordinatorSettings;
}
