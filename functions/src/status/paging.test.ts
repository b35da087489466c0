import type { Member } from "@quiesce/core";
import { describe, expect, it } from "vitest";
import { groupOf, summarizeCluster } from "./groups";
import {
  compareEventPositions,
  decodeEventToken,
  decodeMemberToken,
  type EventPosition,
  encodeToken,
  nextSlice,
  viewsWithinBytes,
} from "./paging";

describe("status paging", () => {
  it("orders active events oldest first, then ended ones newest first, ties by cluster and key", () => {
    const p = (s: 0 | 1, t: number, c: string, k: string): EventPosition => ({ s, t, c, k });
    const shuffled = [
      p(1, -20, "a", "x"),
      p(0, 5, "b", "a"),
      p(1, -30, "a", "y"),
      p(0, 5, "a", "z"),
      p(0, 1, "z", "z"),
    ];
    expect([...shuffled].sort(compareEventPositions)).toEqual([
      p(0, 1, "z", "z"),
      p(0, 5, "a", "z"),
      p(0, 5, "b", "a"),
      p(1, -30, "a", "y"),
      p(1, -20, "a", "x"),
    ]);
  });

  it("round-trips a position through an opaque token and refuses anything else", () => {
    const at: EventPosition = { s: 0, t: 1_700_000_000_000, c: "web", k: "constructor" };
    expect(decodeEventToken(encodeToken(at))).toEqual(at);
    expect(decodeEventToken("bm90IGpzb24")).toBeNull();
    expect(decodeEventToken(encodeToken({ m: "vm" }))).toBeNull();
    expect(decodeMemberToken(encodeToken({ m: "__proto__" }))).toEqual({ m: "__proto__" });
  });

  it("slices after a position, and says whether more follow", () => {
    const items = [1, 2, 3, 4, 5];
    expect(nextSlice(items, null, 2)).toEqual({ slice: [1, 2], more: true });
    expect(nextSlice(items, (x) => x > 2, 2)).toEqual({ slice: [3, 4], more: true });
    expect(nextSlice(items, (x) => x > 4, 2)).toEqual({ slice: [5], more: false });
    expect(nextSlice(items, (x) => x > 9, 2)).toEqual({ slice: [], more: false });
  });

  it("stops reading once the byte budget is spent, but always shows one", async () => {
    const batches: number[][] = [];
    const build = async (part: number[]) => {
      batches.push(part);
      return part.map((n) => (n === 2 ? null : "x".repeat(n * 100)));
    };
    const r = await viewsWithinBytes([1, 2, 3, 4, 5, 6], 2, 800, build);
    expect(r.shown.map((x) => x.head)).toEqual([1, 3]);
    expect(r.cut).toBe(true);
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const one = await viewsWithinBytes([50], 2, 10, build);
    expect(one).toEqual({ shown: [{ head: 50, view: "x".repeat(5000) }], cut: false });
  });
});

describe("cluster groups", () => {
  const m = (name: string, vm: Partial<Member["vm"]>, lastSeenAt = 0): Member => ({
    vmName: name,
    vm: { name, vmId: "id", resourceId: "/r", ...vm },
    relayVersion: "1",
    dryRun: false,
    bootId: "b",
    incarnation: null,
    eventKeys: [],
    firstSeenAt: 0,
    lastSeenAt,
  });

  it("groups by what instance metadata tells: placement group, then scale set, then zone", () => {
    expect(groupOf(m("a", { placementGroupId: "pg", vmScaleSetName: "ss", zone: "1" }))).toEqual({
      kind: "placementGroup",
      name: "pg",
    });
    expect(groupOf(m("b", { vmScaleSetName: "ss", zone: "1" }))).toEqual({
      kind: "scaleSet",
      name: "ss",
    });
    expect(groupOf(m("c", { zone: "3" }))).toEqual({ kind: "zone", name: "3" });
    expect(groupOf(m("d", { platformFaultDomain: "1" }))).toEqual({ kind: "ungrouped", name: "" });
  });

  it("counts members and live members per group, lists the largest groups first up to the cap", () => {
    const members = [
      m("a", { zone: "1" }, 1),
      m("b", { zone: "1" }, 0),
      m("c", { zone: "2" }, 1),
      m("d", {}, 1),
      m("e", { vmScaleSetName: "s" }, 1),
    ];
    const s = summarizeCluster("web", members, (x) => x.lastSeenAt === 1, 7, 2);
    expect(s).toEqual({
      cluster: "web",
      memberCount: 5,
      liveMembers: 4,
      activeEventCount: 7,
      groups: [
        { kind: "zone", name: "1", memberCount: 2, liveMembers: 1 },
        { kind: "scaleSet", name: "s", memberCount: 1, liveMembers: 1 },
      ],
    });
  });
});
