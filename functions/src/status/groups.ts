import type { Member } from "@quiesce/core";
import type { ClusterSummary, GroupKind, GroupSummary } from "@quiesce/protocol/status";

/**
 * Where a member sits, from what its relay read in instance metadata. A scale-set VM carries its
 * placement group (events are delivered per placement group) and scale set; a zonal VM its zone.
 * Instance metadata does not name an availability set, so a VM of an availability set and a
 * standalone VM both show as ungrouped (kind `availabilitySet` is never produced today).
 */
export function groupOf(m: Member): { kind: GroupKind; name: string } {
  if (m.vm.placementGroupId) return { kind: "placementGroup", name: m.vm.placementGroupId };
  if (m.vm.vmScaleSetName) return { kind: "scaleSet", name: m.vm.vmScaleSetName };
  if (m.vm.zone) return { kind: "zone", name: m.vm.zone };
  return { kind: "ungrouped", name: "" };
}

/** Counts per cluster and per group; the largest `maxGroups` groups are listed. */
export function summarizeCluster(
  cluster: string,
  members: readonly Member[],
  isLive: (m: Member) => boolean,
  activeEventCount: number,
  maxGroups: number,
): ClusterSummary {
  const groups = new Map<string, GroupSummary>();
  let live = 0;
  for (const m of members) {
    const g = groupOf(m);
    const id = `${g.kind}\u0000${g.name}`;
    const entry = groups.get(id) ?? { ...g, memberCount: 0, liveMembers: 0 };
    entry.memberCount++;
    if (isLive(m)) {
      entry.liveMembers++;
      live++;
    }
    groups.set(id, entry);
  }
  const listed = [...groups.values()]
    .sort(
      (a, b) =>
        b.memberCount - a.memberCount ||
        (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    )
    .slice(0, maxGroups);
  return {
    cluster,
    memberCount: members.length,
    liveMembers: live,
    activeEventCount,
    groups: listed,
  };
}
