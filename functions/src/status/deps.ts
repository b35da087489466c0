import type { Clock } from "@quiesce/protocol";
import type { GroupSummary } from "@quiesce/protocol/status";
import type { CoordinatorOptions, Policies } from "../options";
import type { ClusterStore } from "../store";
import type { RefusedReports } from "./refusedReports";

/** What the status reads need of the coordinator: its store, its clock, its options and policies. */
export interface StatusDeps {
  store: ClusterStore;
  clock: Clock;
  options: Pick<CoordinatorOptions, "eventRetentionMs">;
  policies: Policies;
  /** Reports refused at authentication, shown beside the VMs they claim (refusedReports.ts). */
  refusedReports?: RefusedReports;
  /** Where Azure offers approval through ARM, per group (controlPlane/regionWatch.ts). */
  controlPlane?: {
    readonly regions: {
      annotate(cluster: string, groups: readonly GroupSummary[]): Promise<GroupSummary[]>;
    } | null;
  };
}
