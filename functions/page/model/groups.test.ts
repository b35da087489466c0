import { describe, expect, it } from "vitest";
import { groupMembers, groupOf } from "./groups";

describe("members under their groups", () => {
  it("prefers the placement group, then scale set, availability set, zone, else ungrouped", () => {
    expect(
      groupOf({ vm: "a", live: true, placementGroupId: "pg", vmScaleSetName: "ss", zone: "1" }),
    ).toEqual({ kind: "placementGroup", name: "pg" });
    expect(groupOf({ vm: "a", live: true, vmScaleSetName: "ss", zone: "1" })).toEqual({
      kind: "scaleSet",
      name: "ss",
    });
    expect(groupOf({ vm: "a", live: true, availabilitySetName: "av", zone: "1" })).toEqual({
      kind: "availabilitySet",
      name: "av",
    });
    expect(groupOf({ vm: "a", live: true, zone: "1" })).toEqual({ kind: "zone", name: "1" });
    expect(groupOf({ vm: "a", live: true })).toEqual({ kind: "ungrouped", name: "" });
  });

  it("keeps the API's groups and counts (it sees every member), and counts groups only the members show", () => {
    const groups = groupMembers(
      [
        { vm: "web-0", live: true, availabilitySetName: "AVSET-WEB" },
        { vm: "db-0", live: false, zone: "2" },
        { vm: "db-1", live: true, zone: "2" },
      ],
      [{ kind: "availabilitySet", name: "avset-web", memberCount: 40, liveMembers: 39 }],
    );
    expect(
      groups.map((g) => [g.kind, g.name, g.members.map((m) => m.vm), g.memberCount, g.liveMembers]),
    ).toEqual([
      ["availabilitySet", "avset-web", ["web-0"], 40, 39],
      ["zone", "2", ["db-0", "db-1"], 2, 1],
    ]);
  });
});
