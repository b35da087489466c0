import type { Policy } from "@quiesce/protocol/policy";
import type { DeferDirective } from "@quiesce/protocol/relay";
import { drained, report, scheduled, T0 } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { applyOperatorAction, drainStartAt, dueAgentlessHooks, explain } from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * Maintenance windows in the coordinator: a deferred event is neither elected nor approved
 * (auto-approve rules included; an operator's force wins), "waiting for" and the blockers name
 * the rule, relays are told which drains to hold, and the coordinator's own drains wait too.
 * T0 is Monday 2022-04-11 22:00Z; the testkit's events have NotBefore T0 + 15 min.
 */
const id = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
const key = id.toLowerCase();
const ev = scheduled(id, ["vm0", "vm1"]);
const MIN = 60_000;

const windowed = (
  weekly: { days: string[]; start: string; end: string; name?: string }[],
  extra: Partial<Policy> = {},
) =>
  policy({
    maintenanceWindows: {
      timeZone: "UTC",
      weekly,
      blackouts: [],
      exemptEventTypes: ["Preempt", "Terminate"],
      latestDrainStartSecondsBeforeNotBefore: 600,
    },
    ...extra,
  });
const defers = (d: { reply: { directives: { kind: string }[] } }) =>
  d.reply.directives.filter((x): x is DeferDirective => x.kind === "defer");
const registerBoth = (s: Sim) => {
  s.send(report("vm0", 1, []));
  s.send(report("vm1", 1, []));
};

describe("maintenance windows in the coordinator", () => {
  it("holds approval until the window opens (auto-approve included), names it, then approves as usual", () => {
    const s = new Sim(
      windowed([{ name: "evening", days: ["Mon"], start: "22:03", end: "23:00" }], {
        autoApprove: [{ name: "freezes", eventTypes: ["Freeze"] }],
      }),
    );
    registerBoth(s);
    const first = s.send(report("vm0", 2, [ev]));
    expect(approveIds(first)).toEqual([]);
    const [defer] = defers(first);
    expect(defer?.eventIds).toEqual([id]);
    // First seen at T0 + 3 s: the window opens at 22:03, 177 s later.
    expect(defer?.untilSeconds).toBe(177);
    expect(s.phase(id)).toBe("Observed");
    // A "blocked" alert counts from when the drain may start, not from first sight.
    expect(drainStartAt(s.event(id), s.p)).toBe(T0 + 3 * MIN);
    const why = explain(s.state, key, s.now, s.p);
    expect(why?.waitingFor).toContain(
      "drain deferred until window evening opens at 2022-04-11T22:03:00.000Z",
    );
    expect(why?.blockers.map((b) => b.reason)).toEqual(["maintenanceWindow", "maintenanceWindow"]);
    // Even drained (a relay too old to know defer directives drains at once), nothing is approved.
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([]);
    expect(s.tick(60_000).state.events[key]?.lease).toBeNull();
    // The window opens: the auto-approve rule applies again, and the status keeps the rule.
    s.now = T0 + 3 * MIN;
    const opened = s.send(report("vm0", 2, [ev]));
    expect(approveIds(opened)).toEqual([id]);
    expect(defers(opened)).toEqual([
      { kind: "defer", eventIds: [], untilSeconds: 0, exemptEventTypes: ["Preempt", "Terminate"] },
    ]);
    expect(s.event(id).approvalRule).toBe("policy:freezes");
    expect(explain(s.state, key, s.now, s.p)?.maintenanceWindow).toContain(
      "drain started when it opened",
    );
  });

  it("when no window opens before NotBefore, drains at the latest start and approves before NotBefore", () => {
    const s = new Sim(windowed([{ days: ["Fri"], start: "22:00", end: "04:00" }]));
    registerBoth(s);
    s.send(report("vm0", 2, [ev]));
    expect(explain(s.state, key, s.now, s.p)?.waitingFor).toContain(
      "no window before NotBefore: drain deferred to the latest start, 2022-04-11T22:05:00.000Z",
    );
    s.now = T0 + 5 * MIN;
    expect(defers(s.send(report("vm0", 2, [ev])))[0]?.eventIds).toEqual([]);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
    expect(s.now).toBeLessThan(T0 + 15 * MIN);
    expect(explain(s.state, key, s.now, s.p)?.maintenanceWindow).toContain(
      "drain at the latest start",
    );
  });

  it("an operator's force-approve wins over a window; exempt types are never deferred", () => {
    const s = new Sim(windowed([{ days: ["Fri"], start: "22:00", end: "04:00" }]));
    registerBoth(s);
    s.send(report("vm0", 2, [ev]));
    const d = applyOperatorAction(
      s.state,
      key,
      { kind: "forceApprove", by: "alice", reason: "vendor call", ttlSeconds: 600 },
      s.now,
      s.p,
    );
    s.state = d.state;
    expect(approveIds(s.send(report("vm0", 2, [ev])))).toEqual([id]);
    const preempt = scheduled("P-1", ["vm1"], { EventType: "Preempt" });
    const answer = s.send(report("vm1", 3, [ev, preempt]));
    expect(defers(answer).flatMap((x) => x.eventIds)).not.toContain("P-1");
    expect(explain(s.state, "p-1", s.now, s.p)?.maintenanceWindow).toContain("Preempt is exempt");
  });

  it("without windows, answers carry no defer directive at all", () => {
    const s = new Sim();
    registerBoth(s);
    expect(defers(s.send(report("vm0", 2, [ev])))).toEqual([]);
  });

  it("the coordinator's own (agentless) drains wait for the window too", () => {
    const p = windowed([{ days: ["Mon"], start: "22:03", end: "23:00" }], {
      agentless: {
        enabled: true,
        maxAttempts: 3,
        drain: { url: "https://hooks.example/drain/{vmName}", timeoutSeconds: 60 },
      },
    });
    const s = new Sim(p);
    s.send(report("vm0", 1, []));
    s.send(report("vm0", 2, [scheduled(id, ["vm0", "agentless-1"])]));
    expect(dueAgentlessHooks(s.state, s.now, p).filter((r) => r.hook === "drain")).toEqual([]);
    expect(
      dueAgentlessHooks(s.state, T0 + 3 * MIN, p)
        .filter((r) => r.hook === "drain")
        .map((r) => r.vm),
    ).toEqual(["agentless-1"]);
  });
});
