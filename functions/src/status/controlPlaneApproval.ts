import type { ClusterSummary } from "@quiesce/protocol/status";
import type { StatusDeps } from "./deps";

/**
 * A cluster's groups with whether Azure offers approval through ARM where they run
 * (controlPlane/regionWatch.ts). Unchanged without the control plane; a table that cannot be read
 * leaves the field out rather than failing the status answer.
 */
export async function withControlPlaneApproval<T extends ClusterSummary>(
  deps: StatusDeps,
  summary: T,
): Promise<T> {
  const regions = deps.controlPlane?.regions;
  if (!regions) return summary;
  try {
    return { ...summary, groups: await regions.annotate(summary.cluster, summary.groups) };
  } catch {
    return summary;
  }
}
