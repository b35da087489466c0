import type { Clock } from "@quiesce/protocol";
import type { CoordinatorOptions, Policies } from "../options";
import type { ClusterStore } from "../store";

/** What the status reads need of the coordinator: its store, its clock, its options and policies. */
export interface StatusDeps {
  store: ClusterStore;
  clock: Clock;
  options: Pick<CoordinatorOptions, "eventRetentionMs">;
  policies: Policies;
}
