import { drained, report, run, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { applyOperatorAction, explain } from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * What the policy decides along those paths: auto-approval rules, what blocks (failed drains,
 * VMs without a live relay), the budget of events in flight, operator actions, report cadence,
 * member writes and retention.
 */
describe("lifecycle paths", () => {
  const id = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
  const ev = scheduled(id, ["vm0", "vm1"]);
  const registerBoth = (s: Sim) => {
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
  };

  it("auto-approves user events by policy without waiting for drains, naming the rule", () => {
    const s = new Sim(policy({ autoApprove: [{ name: "user-events", eventSources: ["User"] }] }));
    registerBoth(s);
    const user = scheduled(id, ["vm0", "vm1"], {
      EventType: "Reboot",
      EventSource: "User",
      DurationInSeconds: -1,
    });
    expect(approveIds(s.send(report("vm0", 2, [user])))).toEqual([id]);
    expect(s.state.events[id.toLowerCase()]?.approvalRule).toBe("policy:user-events");
  });

  it("auto-approves a Freeze under 9 s only when DurationInSeconds is known and short", () => {
    const p = policy({
      autoApprove: [{ name: "short-freeze", eventTypes: ["Freeze"], maxDurationInSeconds: 9 }],
    });
    const s = new Sim(p);
    registerBoth(s);
    expect(
      approveIds(s.send(report("vm0", 2, [scheduled(id, ["vm0"], { DurationInSeconds: -1 })]))),
    ).toEqual([]);
    expect(
      approveIds(s.send(report("vm0", 3, [scheduled(id, ["vm0"], { DurationInSeconds: 5 })]))),
    ).toEqual([id]);
  });

  it("blocks on a failed drain by default and proceeds when policy says so", () => {
    for (const [onDrainFailure, expected] of [
      ["block", []],
      ["proceed", [id]],
    ] as const) {
      const s = new Sim(policy({ onDrainFailure }));
      registerBoth(s);
      s.send(report("vm0", 2, [ev], { hooks: [{ eventId: id, drain: run("failed") }] }));
      expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual(
        expected,
      );
    }
  });

  it("blocks on a VM without a live relay by default (never registered or heartbeat lost), ignores it by policy", () => {
    const three = scheduled(id, ["vm0", "vm1", "ghost"]);
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [three], { hooks: [drained(id)] }));
    expect(approveIds(s.send(report("vm1", 2, [three], { hooks: [drained(id)] })))).toEqual([]);
    expect(explain(s.state, id.toLowerCase(), s.now, s.p)?.blockers).toMatchObject([
      { vm: "ghost", reason: "neverRegistered" },
    ]);
    const lax = new Sim(policy({ unmanagedVms: "ignore" }));
    registerBoth(lax);
    lax.send(report("vm0", 2, [three], { hooks: [drained(id)] }));
    expect(approveIds(lax.send(report("vm1", 2, [three], { hooks: [drained(id)] })))).toEqual([id]);

    const lost = new Sim();
    registerBoth(lost);
    lost.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    lost.now += 120_000; // vm1 silent past the liveness timeout
    const d = lost.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    expect(approveIds(d)).toEqual([]);
    expect(explain(lost.state, id.toLowerCase(), lost.now, lost.p)?.blockers[0]?.reason).toBe(
      "noLiveRelay",
    );
  });

  it("holds a second ready event while the cluster's budget of events in flight is used", () => {
    const s = new Sim();
    registerBoth(s);
    const a = scheduled("aaaa", ["vm0"]);
    const b = scheduled("bbbb", ["vm1"]);
    s.send(report("vm0", 2, [a, b], { hooks: [drained("aaaa")] }));
    expect(s.phase("aaaa")).toBe("Approving");
    const d = s.send(report("vm1", 2, [a, b], { hooks: [drained("bbbb")] }));
    expect(approveIds(d)).toEqual([]);
    expect(explain(s.state, "bbbb", s.now, s.p)?.waitingFor).toMatch(/budget of 1 event/);
  });

  it("applies operator hold (blocks), release, and force-approve (overrides readiness) with expiry", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    const key = id.toLowerCase();
    let d = applyOperatorAction(
      s.state,
      key,
      { kind: "hold", by: "alice", reason: "release freeze", ttlSeconds: 600 },
      s.now,
      s.p,
    );
    s.state = d.state;
    expect(d.transitions[0]?.reason).toMatch(/held by alice/);
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([]);
    expect(explain(s.state, key, s.now, s.p)?.waitingFor).toMatch(/operator hold by alice/);
    d = applyOperatorAction(
      s.state,
      key,
      { kind: "release", by: "alice", reason: "done" },
      s.now,
      s.p,
    );
    s.state = d.state;
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);

    const f = new Sim();
    registerBoth(f);
    f.send(report("vm0", 2, [ev]));
    d = applyOperatorAction(
      f.state,
      key,
      { kind: "forceApprove", by: "bob", reason: "urgent", ttlSeconds: 60 },
      f.now,
      f.p,
    );
    f.state = d.state;
    expect(approveIds(f.send(report("vm0", 2, [ev])))).toEqual([id]);
    expect(f.state.events[key]?.approvalRule).toBe("forced");

    const expired = new Sim();
    registerBoth(expired);
    expired.send(report("vm0", 2, [ev]));
    expired.state = applyOperatorAction(
      expired.state,
      key,
      { kind: "forceApprove", by: "bob", reason: "x", ttlSeconds: 10 },
      expired.now,
      expired.p,
    ).state;
    expect(approveIds(expired.send(report("vm0", 2, [ev]), 11_000))).toEqual([]);
  });

  it("asks for fast reports while an event is active and slow ones when idle", () => {
    const s = new Sim();
    expect(s.send(report("vm0", 1, [])).reply.nextReportInSeconds).toBe(s.p.idleReportSeconds);
    expect(s.send(report("vm0", 2, [ev])).reply.nextReportInSeconds).toBe(s.p.activeReportSeconds);
  });

  it("costs no member write for an idle heartbeat inside the liveness granularity", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    const before = s.state.members.vm0;
    // An idle relay's granularity is a third of its idle liveness timeout (640 s by default).
    const granularityMs = (s.p.idleLivenessTimeoutSeconds * 1000) / 3;
    s.send(report("vm0", 1, []), granularityMs - 5_000);
    expect(s.state.members.vm0).toBe(before);
    s.send(report("vm0", 1, []), 5_000);
    expect(s.state.members.vm0).not.toBe(before);
  });

  it("forgets ended events after the retention period", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev]));
    s.send(report("vm0", 3, []));
    expect(s.phase(id)).toBe("Cancelled");
    expect(s.tick(1000).forget).toEqual([]);
    expect(s.tick(15 * 86_400_000).forget).toEqual([id.toLowerCase()]);
  });
});
