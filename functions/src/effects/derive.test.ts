import {
  applyOperatorAction,
  applyReport,
  type ClusterState,
  coverage,
  type Decision,
  emptyClusterState,
  tick,
} from "@quiesce/core";
import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import { report, run, scheduled, T0 } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { eventNotifications, newlyDue } from "../notify/due";
import { decisionFacts } from "../telemetry/facts";
import { coverageEffects, decisionEffects, type Round } from "./derive";

/**
 * The pure halves of a decision's effects: which notifications it makes due (notify/due.ts),
 * what it counts (telemetry/facts.ts), and how derive.ts puts them together for each round.
 */

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

describe("decision effects", () => {
  const unchanged = (state: ClusterState): Decision => ({
    state,
    transitions: [],
    forget: [],
  });
  const reportRound = (r: Parameters<typeof applyReport>[1]): Round => ({
    kind: "report",
    report: r,
    attempts: 2,
    conflicts: 1,
  });
  /** A cluster where E1 was announced to vm0 and vm1, vm0 drained, vm1 not yet reported. */
  function announced(p: Policy) {
    const w = walk(p);
    const ev = scheduled("E1", ["vm0", "vm1"]);
    w.send(report("vm0", 1, [ev]));
    w.send(report("vm0", 1, [ev], { hooks: [{ eventId: "E1", drain: run("succeeded") }] }));
    return { w, ev };
  }

  it("a report counts its outcome with its attempts and conflicts, and notifies only what it newly made due", () => {
    const p = policy();
    const w = walk(p);
    const r = report("vm0", 1, [scheduled("E1", ["vm0"])]);
    const d = w.send(r);
    const e = decisionEffects(emptyClusterState("web"), d, reportRound(r), w.now(), p);
    expect(e.report).toEqual({ outcome: "applied", attempts: 2, conflicts: 1 });
    expect(e.notifications.map((n) => n.kind)).toEqual(["observed"]);
    expect(e.blockers).toBeUndefined();
    const again = w.send(r);
    const repeat = decisionEffects(
      w.steps[0]?.d.state as ClusterState,
      again,
      reportRound(r),
      w.now(),
      p,
    );
    expect(repeat.notifications).toEqual([]);
  });

  it("a report retried after its first attempt wrote the new event still makes 'observed' due, and counts once", () => {
    const p = policy();
    const w = walk(p);
    const r = report("vm0", 1, [scheduled("E1", ["vm0"])]);
    const first = emptyClusterState("web");
    // Attempt 1 wrote E1 and lost a later write; attempt 2 reads E1 back and changes nothing.
    const halfWritten = w.send(r).state;
    const retried = applyReport(halfWritten, r, w.now(), p);
    const round = { ...reportRound(r), firstBefore: first };
    const e = decisionEffects(halfWritten, retried, round, w.now(), p);
    expect(e.notifications.map((n) => n.kind)).toEqual(["observed"]);
    expect(e.facts).toEqual(decisionFacts(halfWritten, retried));
    // From the landing attempt's read alone, the news was lost with the attempt that made it.
    expect(decisionEffects(halfWritten, retried, reportRound(r), w.now(), p).notifications).toEqual(
      [],
    );
  });

  it("an idle heartbeat (nothing changed, IMDS healthy) derives its outcome alone", () => {
    const p = policy();
    const w = walk(p);
    const idle = report("vm0", 1, []);
    w.send(idle);
    const before = w.state();
    const d = applyReport(before, idle, w.now(), p);
    const e = decisionEffects(before, d, reportRound(idle), w.now(), p);
    expect(e).toEqual({
      cluster: "web",
      policy: p,
      report: { outcome: "applied", attempts: 2, conflicts: 1 },
      facts: [],
      notifications: [],
    });
  });

  it("a report older than the one applied counts as stale", () => {
    const p = policy();
    const w = walk(p);
    w.send(report("vm0", 5, []));
    const old = report("vm0", 4, []);
    const d = applyReport(w.state(), old, w.now(), p);
    expect(d.reply.applied).toBe(false);
    expect(decisionEffects(w.state(), d, reportRound(old), w.now(), p).report?.outcome).toBe(
      "stale",
    );
  });

  it("a relay's failing IMDS reads are alerted on from its report even when nothing changed", () => {
    const p = policy({ imdsFailuresBeforeAlert: 3 });
    const w = walk(p);
    w.send(report("vm0", 1, []));
    const r = {
      ...report("vm0", 1, []),
      imds: { failuresInARow: 3, since: new Date(T0).toISOString(), lastError: "timeout" },
    };
    const d = applyReport(w.state(), r, w.now(), p);
    const e = decisionEffects(w.state(), d, reportRound(r), w.now(), p);
    expect(e.notifications.map((n) => [n.kind, n.vm])).toEqual([["imdsFailing", "vm0"]]);
  });

  it("a tick notifies everything still due, blocked included, and counts the blockers; unchanged, it counts no facts", () => {
    const p = policy({ blockedAfterMinutes: 5 });
    const { w } = announced(p);
    const state = w.state();
    const now = T0 + 6 * 60_000;
    const d = tick(state, now, p);
    const e = decisionEffects(state, d, { kind: "tick" }, now, p);
    expect(e.notifications.map((n) => n.kind)).toEqual(["observed", "blocked"]);
    expect(e.blockers).toEqual({ neverRegistered: 1 });
    expect(e.report).toBeUndefined();
    expect(decisionEffects(state, unchanged(state), { kind: "tick" }, now, p).facts).toEqual([]);
    // A report or an operator action derives only what its decision newly made due: nothing.
    const op = decisionEffects(
      state,
      unchanged(state),
      { kind: "change", input: "operator" },
      now,
      p,
    );
    expect(op.notifications).toEqual([]);
  });

  it("a tick's notifications leave out event news too old to send (after a first deploy)", () => {
    const p = policy();
    const { w } = announced(p);
    const state = w.state();
    const late = T0 + 2 * 3_600_000;
    const e = decisionEffects(state, unchanged(state), { kind: "tick" }, late, p);
    expect(e.notifications.filter((n) => n.kind === "observed")).toEqual([]);
  });

  it("an operator's force-approve derives its decision's facts and news, and no report outcome", () => {
    const p = policy();
    const { w } = announced(p);
    const before = w.state();
    const action = { kind: "forceApprove", by: "op", reason: "urgent", ttlSeconds: 600 } as const;
    const d = applyOperatorAction(before, "e1", action, w.now(), p);
    const e = decisionEffects(before, d, { kind: "change", input: "operator" }, w.now(), p);
    expect(e.report).toBeUndefined();
    expect(e.blockers).toBeUndefined();
    expect(e.facts).toEqual(decisionFacts(before, d));
    expect(e.notifications).toEqual(newlyDue(before, d.state, w.now(), p));
  });

  it("coverage effects carry the coverage for the gauges and its alerts for the outbox", () => {
    const p = policy();
    const { w } = announced(p);
    const state = w.state();
    const now = T0 + 24 * 3_600_000;
    const c = coverage(state, now, p);
    const e = coverageEffects(c, now, p);
    expect(e.coverage).toBe(c);
    expect(e.facts).toEqual([]);
    expect(e.notifications.map((n) => n.kind).sort()).toContain("relaySilent");
  });

  it("coverage alerts once per attestation episode: a refused proof, reports left unbound too long", () => {
    const p = policy();
    const { w } = announced(p);
    const state = w.state();
    const now = T0 + 60_000;
    const [mk, m] = Object.entries(state.members)[0] ?? [];
    if (!mk || !m) throw new Error("no member");
    const attested = {
      ...state,
      members: {
        ...state.members,
        [mk]: {
          ...m,
          attestation: {
            binding: null,
            unbound: {
              bootId: "b2",
              since: now - 6 * 60_000,
              why: "not attested yet",
              canAttest: true,
            },
            problem: {
              code: "vmId",
              detail: "another VM's document",
              at: now - 1000,
              bootId: "b2",
            },
          },
        },
      },
    };
    const e = coverageEffects(coverage(attested, now, p), now, p);
    const alerts = e.notifications.filter((n) => n.kind === "attestationFailed");
    expect(alerts.map((n) => n.key).sort()).toEqual([
      `relay|${m.vmName.toLowerCase()}|${now - 360_000}|attestationFailed|unbound`,
      `relay|${m.vmName.toLowerCase()}|${now - 1000}|attestationFailed|vmId`,
    ]);
  });
});
