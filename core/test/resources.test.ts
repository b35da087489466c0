import { drained, report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { approveIds, Sim } from "./fixtures";

const E = "E-RES";

/** vm0 and vm1 both registered and both reported the event naming both (incarnation 2). */
function bothSawIt(a = "vm0", b = "vm1"): Sim {
  const s = new Sim();
  s.send(report(a, 1, []));
  s.send(report(b, 1, []));
  s.send(report(a, 2, [scheduled(E, [a, b])]));
  s.send(report(b, 2, [scheduled(E, [a, b])]));
  return s;
}

describe("who may change an event's Resources (invariant 1 with one dishonest relay)", () => {
  it("one relay re-reporting the event without its neighbour cannot get it approved while the neighbour still serves", () => {
    const s = bothSawIt();
    // vm0 lies (or is buggy): same incarnation, only itself, drained.
    const lie = s.send(report("vm0", 2, [scheduled(E, ["vm0"])], { hooks: [drained(E)] }));
    expect(approveIds(lie)).toEqual([]);
    expect(s.event(E).resources).toEqual(["vm0", "vm1"]);
    // Nor with a made-up newer incarnation.
    const newer = s.send(report("vm0", 9, [scheduled(E, ["vm0"])], { hooks: [drained(E)] }));
    expect(approveIds(newer)).toEqual([]);
    expect(s.blockers(E).map((b) => b.vm)).toEqual(["vm1"]);
  });

  it("lets a VM leave Resources when its own relay's document no longer names it", () => {
    const s = bothSawIt();
    s.send(report("vm0", 3, [scheduled(E, ["vm0"])], { hooks: [drained(E)] }));
    const own = s.send(report("vm1", 3, [scheduled(E, ["vm0"])]));
    expect(s.event(E).resources).toEqual(["vm0"]);
    // vm1 sees it Scheduled and everything named drained: vm1 may approve.
    expect(approveIds(own)).toEqual([E]);
  });

  it("does not let a VM's own view older than the group's newest document remove it", () => {
    const s = bothSawIt();
    // Azure grew the event at incarnation 3 (vm0 saw it); vm1's relay still reports 2 without it...
    // ...which cannot happen for vm1 at 2 (it was named), so: vm1 dropped at 3, re-added at 4.
    s.send(report("vm1", 3, [scheduled(E, ["vm0"])]));
    s.send(report("vm0", 4, [scheduled(E, ["vm0", "vm1"])], { hooks: [drained(E)] }));
    expect(s.event(E).resources).toEqual(["vm0", "vm1"]);
    // vm1's relay is behind (still at 3): its view cannot take it out again.
    const behind = s.send(report("vm1", 3, [scheduled(E, ["vm0"])]));
    expect(approveIds(behind)).toEqual([]);
    expect(s.event(E).resources).toEqual(["vm0", "vm1"]);
  });

  it("does not add a VM on a view older than its own relay's document that does not name it", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
    s.send(report("vm1", 3, [scheduled(E, ["vm0"])])); // vm1 already at 3: not named
    const late = s.send(report("vm0", 2, [scheduled(E, ["vm0", "vm1"])], { hooks: [drained(E)] }));
    expect(s.event(E).resources).toEqual(["vm0"]);
    expect(approveIds(late)).toEqual([E]);
  });

  it("keeps a VM that views of one incarnation disagree about, blocks approval, and says why", () => {
    const s = bothSawIt();
    s.send(report("vm0", 3, [scheduled(E, ["vm0", "vm1"])], { hooks: [drained(E)] }));
    const own = s.send(report("vm1", 3, [scheduled(E, ["vm0"])]));
    expect(approveIds(own)).toEqual([]);
    expect(s.event(E).resources).toEqual(["vm0", "vm1"]);
    expect(s.blockers(E)).toEqual([
      expect.objectContaining({ vm: "vm1", reason: "resourcesDisputed" }),
    ]);
    // A newer document settles it.
    s.send(report("vm0", 4, [scheduled(E, ["vm0"])], { hooks: [drained(E)] }));
    const settled = s.send(report("vm1", 4, [scheduled(E, ["vm0"])]));
    expect(s.event(E).resources).toEqual(["vm0"]);
    expect(s.event(E).resourceDisputes).toEqual([]);
    expect(approveIds(settled)).toEqual([E]);
  });

  it("lets any relay add a VM (only blocking: safe)", () => {
    const s = bothSawIt();
    s.send(report("vm0", 3, [scheduled(E, ["vm0", "vm1", "vm2"])], { hooks: [drained(E)] }));
    expect(s.event(E).resources).toEqual(["vm0", "vm1", "vm2"]);
    expect(s.blockers(E).map((b) => [b.vm, b.reason])).toEqual([
      ["vm1", "drainPending"],
      ["vm2", "neverRegistered"],
    ]);
  });

  it("works the same for VMs named like Object.prototype's members", () => {
    for (const [a, b] of [
      ["constructor", "__proto__"],
      ["toString", "hasOwnProperty"],
      ["valueOf", "CONSTRUCTOR"],
    ] as const) {
      const s = bothSawIt(a, b);
      const lie = s.send(report(a, 2, [scheduled(E, [a])], { hooks: [drained(E)] }));
      expect(approveIds(lie)).toEqual([]);
      const ok = s.send(report(b, 2, [scheduled(E, [a, b])], { hooks: [drained(E)] }));
      expect(approveIds(ok)).toEqual([E]);
      expect(s.event(E).lease?.holder).toBe(b.toLowerCase());
    }
  });
});
