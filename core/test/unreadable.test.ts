import { dict } from "@quiesce/protocol";
import { drained, report, run, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { applyOperatorAction, explain, OperatorActionError, type UnreadableEvent } from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * An event whose stored row does not parse (the store marks it in `unreadableEvents`) is
 * quarantined: rebuilding it from one report would lose its lease, an operator's hold and the
 * Resources guard, and could elect a second approver.
 */

const quarantine = (s: Sim, key: string, u: UnreadableEvent) => {
  s.state = { ...s.state, unreadableEvents: dict([[key, u]]) };
};

describe("a quarantined (unreadable) event", () => {
  it("is never rebuilt from a report, gets no readiness and no approve directive", () => {
    const s = new Sim();
    const ev = scheduled("E-1", ["web-0"]);
    quarantine(s, "e-1", { ended: false, problem: "phase: Invalid option" });
    const d = s.send(report("web-0", 1, [ev], { hooks: [drained("E-1")] }));
    expect(d.reply.applied).toBe(true);
    expect(approveIds(d)).toEqual([]);
    expect(s.state.events["e-1"]).toBeUndefined();
    expect(s.state.readiness["e-1"]).toBeUndefined();
    expect(d.transitions.filter((t) => t.eventKey === "e-1")).toEqual([]);
    // The reporter's own row still records what its document holds; the mark stays on.
    expect(s.member("web-0")?.eventKeys).toEqual(["e-1"]);
    expect(s.state.unreadableEvents?.["e-1"]).toEqual({
      ended: false,
      problem: "phase: Invalid option",
    });
  });

  it("holds a share of maxEventsInFlight unless its row says it ended", () => {
    const s = new Sim();
    const b = scheduled("B-1", ["web-1"]);
    quarantine(s, "a-1", { ended: false, problem: "not JSON" });
    expect(approveIds(s.send(report("web-1", 1, [b], { hooks: [drained("B-1")] })))).toEqual([]);
    expect(explain(s.state, "b-1", s.now, s.p)?.waitingFor).toContain("a-1 (row unreadable)");

    quarantine(s, "a-1", { ended: true, problem: "not JSON" });
    expect(approveIds(s.send(report("web-1", 1, [b], { hooks: [drained("B-1")] })))).toEqual([
      "B-1",
    ]);
  });

  it("refuses operator actions, naming the problem", () => {
    const s = new Sim();
    quarantine(s, "e-1", { ended: false, problem: "phase: Invalid option" });
    const act = () =>
      applyOperatorAction(
        s.state,
        "e-1",
        { kind: "forceApprove", by: "op", reason: "r", ttlSeconds: 60 },
        s.now,
        s.p,
      );
    expect(act).toThrow(OperatorActionError);
    expect(act).toThrow(/phase: Invalid option/);
  });
});

describe("a VM whose member row is unreadable", () => {
  const setup = (unmanagedVms: "block" | "ignore", drain: "succeeded" | "running") => {
    const s = new Sim(policy({ unmanagedVms }));
    const ev = scheduled("E-1", ["web-0", "web-1"]);
    s.send(report("web-1", 1, [ev], { hooks: [{ eventId: "E-1", drain: run(drain) }] }));
    const { "web-1": _gone, ...members } = s.state.members;
    s.state = {
      ...s.state,
      members: dict(Object.entries(members)),
      unreadableMembers: dict([["web-1", "vm: Invalid input"]]),
    };
    return { s, ev };
  };

  it("blocks approval while the policy blocks on unmanaged VMs, though its drain is stored", () => {
    const { s, ev } = setup("block", "succeeded");
    expect(approveIds(s.send(report("web-0", 1, [ev], { hooks: [drained("E-1")] })))).toEqual([]);
    expect(s.blockers("E-1")).toEqual([
      expect.objectContaining({ vm: "web-1", reason: "noLiveRelay" }),
    ]);
    // Its own next report writes a fresh member row, which takes precedence.
    expect(approveIds(s.send(report("web-1", 1, [ev], { hooks: [drained("E-1")] })))).toEqual([
      "E-1",
    ]);
  });

  it("is a VM without a live relay when the policy ignores those: it does not block", () => {
    const { s, ev } = setup("ignore", "running");
    expect(approveIds(s.send(report("web-0", 1, [ev], { hooks: [drained("E-1")] })))).toEqual([
      "E-1",
    ]);
  });
});
