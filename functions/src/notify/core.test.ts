import { applyReport, type ClusterState, emptyClusterState, tick } from "@quiesce/core";
import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import { report, run, scheduled, T0 } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { decisionFacts } from "../telemetry/facts";
import { planRetry } from "./backoff";
import { eventNotifications, newlyDue } from "./core";

/** The pure halves: which notifications a decision makes due, what it counts, when to retry. */

const policy = (notify: Partial<Policy["notify"]> = {}): Policy => ({
  ...DEFAULT_POLICY,
  notify: { ...DEFAULT_POLICY.notify, ...notify },
});

function walk(p: Policy) {
  let state: ClusterState = emptyClusterState("web");
  let now = T0;
  const steps: Array<{ before: ClusterState; d: ReturnType<typeof applyReport>; now: number }> = [];
  const send = (r: Parameters<typeof applyReport>[1]) => {
    now += 1000;
    const d = applyReport(state, r, now, p);
    steps.push({ before: state, d, now });
    state = d.state;
    return d;
  };
  return { send, steps, state: () => state, now: () => now };
}

describe("notifications due", () => {
  it("one per event and kind as it walks Observed → Approving → Started, not one per VM", () => {
    const p = policy();
    const w = walk(p);
    const ev = scheduled("E1", ["vm0", "vm1", "vm2"]);
    const hooks = [{ eventId: "E1", drain: run("succeeded") }];
    for (const vm of ["vm0", "vm1", "vm2"]) w.send(report(vm, 1, [ev]));
    for (const vm of ["vm0", "vm1", "vm2"]) w.send(report(vm, 1, [ev], { hooks }));
    const approver = w.state().events.e1?.lease?.holder as string;
    w.send(
      report(approver, 1, [ev], {
        hooks,
        approvals: [{ eventId: "E1", outcome: "accepted", at: new Date(T0).toISOString() }],
      }),
    );
    const due = w.steps.flatMap((s) => newlyDue(s.before, s.d.state, s.now, p));
    expect(due.map((n) => n.kind)).toEqual(["observed", "approved"]);
    expect(due[1]?.facts).toContainEqual({ name: "Rule", value: "allDrained" });
    expect(due[1]?.facts).toContainEqual({ name: "Approved by", value: approver });
    const facts = w.steps.flatMap((s) => decisionFacts(s.before, s.d));
    expect(facts).toContainEqual({
      kind: "outcome",
      eventType: "Freeze",
      outcome: "approved",
      rule: "allDrained",
    });
    expect(facts.filter((f) => f.kind === "drained")).toHaveLength(1);
  });

  it("a miss is expiredAtNotBefore with notice saved 0; a blocked event notifies only after the policy's minutes", () => {
    const p = policy({ blockedAfterMinutes: 5 });
    const w = walk(p);
    const ev = scheduled("E2", ["vm0", "ghost"]);
    w.send(report("vm0", 1, [ev], { hooks: [{ eventId: "E2", drain: run("succeeded") }] }));
    const state = w.state();
    const e = state.events.e2;
    if (!e) throw new Error("no event");
    const kinds = (now: number) =>
      eventNotifications(state, e, now, p, { withBlocked: true }).map((n) => n.kind);
    expect(kinds(T0 + 4 * 60_000)).toEqual(["observed"]);
    expect(kinds(T0 + 6 * 60_000)).toEqual(["observed", "blocked"]);
    const expiredAt = T0 + 16 * 60_000;
    const d = tick(state, expiredAt, p);
    expect(decisionFacts(state, d)).toEqual(
      expect.arrayContaining([
        { kind: "outcome", eventType: "Freeze", outcome: "expiredAtNotBefore" },
        { kind: "noticeSaved", eventType: "Freeze", outcome: "expiredAtNotBefore", ratio: 0 },
      ]),
    );
    expect(newlyDue(state, d.state, expiredAt, p).map((n) => n.kind)).toEqual([
      "expiredAtNotBefore",
    ]);
  });

  it("leaves out the kinds the cluster's policy does not ask for", () => {
    const p = policy({ on: ["approved"] });
    const w = walk(p);
    w.send(report("vm0", 1, [scheduled("E3", ["vm0"])]));
    const [step] = w.steps;
    expect(step && newlyDue(step.before, step.d.state, step.now, p)).toEqual([]);
  });
});

describe("retry plan", () => {
  const opts = { baseMs: 5_000, maxMs: 300_000, deadlineMs: 3_600_000 };
  it("backs off exponentially with jitter in [ceiling/2, ceiling], capped", () => {
    expect(planRetry(1, 0, 0, opts, 0)).toEqual({ kind: "retry", dueAt: 2_500 });
    expect(planRetry(1, 0, 0, opts, 1)).toEqual({ kind: "retry", dueAt: 5_000 });
    expect(planRetry(3, 0, 0, opts, 1)).toEqual({ kind: "retry", dueAt: 20_000 });
    expect(planRetry(40, 0, 0, opts, 1)).toEqual({ kind: "retry", dueAt: 300_000 });
  });
  it("drops once the next try would land past the deadline", () => {
    expect(planRetry(1, 0, 3_598_000, opts, 1)).toEqual({ kind: "drop" });
  });
});
