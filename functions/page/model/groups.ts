/**
 * Which group a VM belongs to on the page: the placement group, else its scale set, else its
 * availability set, else its zone, else "ungrouped" (the status API's group kinds). Used to lay
 * members out under the groups the API reports, and to derive groups when it reports none.
 */

export interface GroupedMember {
  vm: string;
  live: boolean;
  placementGroupId?: string | undefined;
  vmScaleSetName?: string | undefined;
  availabilitySetName?: string | undefined;
  availabilitySet?: string | undefined;
  zone?: string | undefined;
}

export interface GroupKey {
  kind: string;
  name: string;
}

export function groupOf(m: GroupedMember): GroupKey {
  if (m.placementGroupId) return { kind: "placementGroup", name: m.placementGroupId };
  if (m.vmScaleSetName) return { kind: "scaleSet", name: m.vmScaleSetName };
  const avset = m.availabilitySetName ?? m.availabilitySet;
  if (avset) return { kind: "availabilitySet", name: avset };
  if (m.zone) return { kind: "zone", name: m.zone };
  return { kind: "ungrouped", name: "" };
}

export interface MemberGroup<M> extends GroupKey {
  members: M[];
  memberCount: number;
  liveMembers: number;
}

const key = (g: GroupKey) => `${g.kind}\u0000${g.name.toLowerCase()}`;

/**
 * Members under their groups, in the API's group order when it gives one (counts from the API,
 * which sees every member even when the page holds only some), then any group only the members show.
 */
export function groupMembers<M extends GroupedMember>(
  members: readonly M[],
  reported: readonly (GroupKey & { memberCount: number; liveMembers: number })[] = [],
): MemberGroup<M>[] {
  const out = new Map<string, MemberGroup<M>>();
  for (const g of reported) out.set(key(g), { ...g, members: [] });
  for (const m of members) {
    const g = groupOf(m);
    let entry = out.get(key(g));
    if (!entry) {
      entry = { ...g, members: [], memberCount: 0, liveMembers: 0 };
      out.set(key(g), entry);
    }
    entry.members.push(m);
  }
  const derived = new Set(reported.map(key));
  for (const [k, g] of out)
    if (!derived.has(k)) {
      g.memberCount = g.members.length;
      g.liveMembers = g.members.filter((m) => m.live).length;
    }
  return [...out.values()];
}

export const GROUP_KIND_LABEL: Record<string, string> = {
  placementGroup: "placement group",
  scaleSet: "scale set",
  availabilitySet: "availability set",
  zone: "zone",
  ungrouped: "not in a group",
};
