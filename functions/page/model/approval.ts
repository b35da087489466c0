import type { ClusterPage } from "@quiesce/protocol/status";

type Approval = ClusterPage["groups"][number]["controlPlaneApproval"];

/**
 * What a group's heading says about approval through Azure Resource Manager where it runs
 * (docs/control-plane.md, "Where Azure offers approval"): available, not available or unknown,
 * since when and how the coordinator learnt it. `warn` when the group relies on it and Azure does
 * not offer it there (its events start at NotBefore). Null: the coordinator has no control plane.
 */
export function approvalNote(
  groups: ClusterPage["groups"],
  kind: string,
  name: string,
): { text: string; warn: boolean } | null {
  const a: Approval = groups.find(
    (g) => g.kind === kind && g.name.toLowerCase() === name.toLowerCase(),
  )?.controlPlaneApproval;
  if (!a) return null;
  const relies = a.relies ? " · relied on" : "";
  if (a.availability === "unknown")
    return { text: `control-plane approval: unknown${relies}`, warn: false };
  const what = a.availability === "available" ? "available" : "not available";
  const learnt = a.how === "probe" ? "probe" : "acknowledge";
  return {
    text: `control-plane approval: ${what} in ${a.region} since ${a.since} (${learnt}, ${a.detail})${relies}`,
    warn: a.relies && a.availability === "notAvailable",
  };
}
