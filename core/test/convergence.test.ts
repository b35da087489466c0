import type { ImdsProblem } from "@quiesce/protocol/imds";
import type { RelayReport } from "@quiesce/protocol/relay";
import {
  drained,
  type ReportOptions,
  report,
  run,
  scheduled,
  started,
  T0,
} from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  BYSTANDER_REPORT_SECONDS,
  bystanderInterval,
  emptyClusterState,
  explain,
  HANDOFF_REPORT_SECONDS,
  storedHooks,
} from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * Self-healing in the pure core: IMDS problems block what they might hide, the budget is handed
 * on by the report that frees it (earliest NotBefore first), Preempt/Terminate ignore the budget,
 * relays are asked to report fast enough to converge, and the hooks storage holds are listed as
 * stored.
 */

const withProblems = (r: RelayReport, imdsProblems: ImdsProblem[]): RelayReport => ({
  ...r,
  imdsProblems,
});
const minutes = (m: number) => new Date(T0 + m * 60_000).toUTCString();

describe("IMDS problems reported by a relay (protocol 1.1)", () => {
  const ev = scheduled("E1", ["vm0", "vm1"]);
  const hidden: ImdsProblem = {
    kind: "event",
    field: "Events[1].EventId",
    detail: "EventId unreadable: 7",
  };

  it("block approval of an event naming that VM, even drained, until its document reads clean", () => {
    const s = new Sim();
    s.send(report("vm0", 2, [ev], { hooks: [drained("E1")] }));
    s.send(withProblems(report("vm1", 2, [ev], { hooks: [drained("E1")] }), [hidden]));
    expect(s.phase("E1")).toBe("Draining");
    const why = explain(s.state, "e1", s.now, s.p);
    expect(why?.blockers).toEqual([
      { vm: "vm1", reason: "imdsProblem", detail: expect.stringMatching(/EventId unreadable/) },
    ]);
    expect(s.state.members.vm1?.imdsProblems).toEqual([hidden]);
    const clean = s.send(report("vm1", 2, [ev], { hooks: [drained("E1")] }));
    expect(approveIds(clean)).toEqual(["E1"]);
    expect(s.state.members.vm1?.imdsProblems).toBeUndefined();
  });

  it("block for a kind a newer relay reports that this coordinator does not know", () => {
    const s = new Sim();
    const newer = { kind: "checksum", detail: "document checksum mismatch" };
    s.send(report("vm0", 2, [ev], { hooks: [drained("E1")] }));
    s.send(withProblems(report("vm1", 2, [ev], { hooks: [drained("E1")] }), [newer]));
    expect(explain(s.state, "e1", s.now, s.p)?.blockers.map((b) => b.reason)).toEqual([
      "imdsProblem",
    ]);
  });

  it("do not block for a field the relay worked around, but are kept for the status API", () => {
    const s = new Sim();
    const field: ImdsProblem = {
      kind: "field",
      eventId: "E1",
      field: "DurationInSeconds",
      detail: 'DurationInSeconds unreadable: "x"',
    };
    s.send(report("vm0", 2, [ev], { hooks: [drained("E1")] }));
    const d = s.send(withProblems(report("vm1", 2, [ev], { hooks: [drained("E1")] }), [field]));
    expect(approveIds(d)).toEqual(["E1"]);
    expect(s.state.members.vm1?.imdsProblems).toEqual([field]);
  });
});

describe("the cluster's budget of events in flight", () => {
  const seeAll = (vm: string, events: ReturnType<typeof scheduled>[], o: ReportOptions = {}) =>
    report(vm, 5, events, o);

  it("is handed by the report that frees it to the next ready event with the earliest NotBefore", () => {
    const s = new Sim();
    const a = scheduled("A", ["vm0"]);
    const late = scheduled("LATE", ["vm1"], { NotBefore: minutes(14) });
    const soon = scheduled("SOON", ["vm2"], { NotBefore: minutes(5) });
    s.send(seeAll("vm0", [a, late, soon], { hooks: [drained("A")] }));
    expect(s.phase("A")).toBe("Approving");
    s.send(seeAll("vm1", [a, late, soon], { hooks: [drained("LATE")] }));
    s.send(seeAll("vm2", [a, late, soon], { hooks: [drained("SOON")] }));
    s.send(
      seeAll("vm0", [a, late, soon], {
        hooks: [drained("A")],
        approvals: [{ eventId: "A", outcome: "accepted", at: new Date(T0).toISOString() }],
      }),
    );
    // A runs and leaves the document; vm0 recovers.
    s.send(report("vm0", 6, [started(a), late, soon], { hooks: [drained("A")] }));
    s.send(report("vm0", 7, [late, soon], { hooks: [drained("A", "running")] }));
    expect(s.phase("A")).toBe("Recovering");
    expect(["LATE", "SOON"].map((id) => s.phase(id))).toEqual(["Ready", "Ready"]);
    // vm0 sees both, could approve either: the one Azure starts first gets the budget.
    const freeing = s.send(report("vm0", 7, [late, soon], { hooks: [drained("A", "succeeded")] }));
    expect(s.phase("A")).toBe("Completed");
    expect(approveIds(freeing)).toEqual(["SOON"]);
    expect(s.phase("LATE")).toBe("Ready");
  });

  it("asks relays that could approve an event waiting only for the budget to report within a second", () => {
    const s = new Sim(policy({ activeReportSeconds: 5 }));
    const a = scheduled("A", ["vm0"]);
    const b = scheduled("B", ["vm1"]);
    s.send(seeAll("vm0", [a, b], { hooks: [drained("A")] }));
    const waiting = s.send(seeAll("vm1", [a, b], { hooks: [drained("B")] }));
    expect(s.phase("B")).toBe("Ready");
    expect(waiting.reply.nextReportInSeconds).toBe(HANDOFF_REPORT_SECONDS);
    // A dry-run relay can never be handed the event, and none names its VM: a bystander.
    const dry = s.send(seeAll("vm2", [a, b], { dryRun: true }));
    expect(dry.reply.nextReportInSeconds).toBe(BYSTANDER_REPORT_SECONDS);
  });

  it("lets a bystander (sees events, named by none, not needed to approve) report only to stay live", () => {
    const s = new Sim(policy({ activeReportSeconds: 5 }));
    const e = scheduled("E", ["vm0"]);
    s.send(seeAll("vm0", [e]));
    const bystander = s.send(seeAll("vm1", [e]));
    expect(bystander.reply.nextReportInSeconds).toBe(BYSTANDER_REPORT_SECONDS);
    expect(BYSTANDER_REPORT_SECONDS * 1000).toBeLessThan(policy().livenessTimeoutSeconds * 1000);
    // The named VM drains and is elected in the answer to its own report: nobody waited on vm1.
    expect(approveIds(s.send(seeAll("vm0", [e], { hooks: [drained("E")] })))).toEqual(["E"]);
  });

  it("never lets a bystander's heartbeat outlast a third of the liveness timeout", () => {
    const s = new Sim(policy({ activeReportSeconds: 2, livenessTimeoutSeconds: 15 }));
    const e = scheduled("E", ["vm0"]);
    s.send(seeAll("vm0", [e]));
    expect(s.send(seeAll("vm1", [e])).reply.nextReportInSeconds).toBe(5);
    expect(bystanderInterval(policy({ activeReportSeconds: 5, idleReportSeconds: 20 }))).toBe(20);
  });

  it("keeps a bystander at the active interval while no VM the event names could approve it", () => {
    const s = new Sim(policy({ activeReportSeconds: 5 }));
    const e = scheduled("E", ["vm0"]);
    s.send(seeAll("vm0", [e], { dryRun: true }));
    const needed = s.send(seeAll("vm1", [e]));
    expect(approveIds(needed)).toEqual([]); // vm0 has not drained yet
    expect(needed.reply.nextReportInSeconds).toBe(5); // but only vm1 can approve once it has
    s.send(seeAll("vm0", [e], { dryRun: true, hooks: [drained("E")] }));
    expect(approveIds(s.send(seeAll("vm1", [e])))).toEqual(["E"]);
  });

  it("is neither waited for nor held by Preempt and Terminate, which delete their VMs anyway", () => {
    const s = new Sim();
    const reboot = scheduled("R", ["vm0"], { EventType: "Reboot" });
    const preempt = scheduled("P", ["vm1"], { EventType: "Preempt" });
    const terminate = scheduled("T", ["vm2"], { EventType: "Terminate" });
    const all = [reboot, preempt, terminate];
    s.send(seeAll("vm0", all, { hooks: [drained("R")] }));
    expect(s.phase("R")).toBe("Approving");
    expect(approveIds(s.send(seeAll("vm1", all, { hooks: [drained("P")] })))).toEqual(["P"]);
    expect(approveIds(s.send(seeAll("vm2", all, { hooks: [drained("T")] })))).toEqual(["T"]);
    // And with only them approving, an ordinary event still gets the budget.
    const s2 = new Sim();
    s2.send(seeAll("vm1", all, { hooks: [drained("P")] }));
    s2.send(seeAll("vm2", all, { hooks: [drained("T")] }));
    expect(approveIds(s2.send(seeAll("vm0", all, { hooks: [drained("R")] })))).toEqual(["R"]);
  });
});

describe("report cadence and stored hooks for convergence", () => {
  it("keeps a relay that owes a recover at the active interval after the event left its document", () => {
    const s = new Sim(policy({ activeReportSeconds: 5, idleReportSeconds: 20 }));
    const e = scheduled("E", ["vm0"]);
    s.send(report("vm0", 2, [e], { hooks: [drained("E")] }));
    s.send(
      report("vm0", 2, [e], {
        hooks: [drained("E")],
        approvals: [{ eventId: "E", outcome: "accepted", at: new Date(T0).toISOString() }],
      }),
    );
    s.send(report("vm0", 3, [started(e)], { hooks: [drained("E")] }));
    const left = s.send(report("vm0", 4, [], { hooks: [drained("E", "running")] }));
    expect(s.phase("E")).toBe("Recovering");
    expect(left.reply.nextReportInSeconds).toBe(5);
    const done = s.send(report("vm0", 4, [], { hooks: [drained("E", "succeeded")] }));
    expect(s.phase("E")).toBe("Completed");
    expect(done.reply.nextReportInSeconds).toBe(20);
  });

  it("lists as stored only hook states storage held, durably, before the report: a lost write is re-sent", () => {
    const s = new Sim();
    const e = scheduled("E", ["vm0", "vm1"]);
    const r = report("vm0", 2, [e], { hooks: [drained("E")] });
    const settle = 6_000;
    // New to storage: not listed as stored.
    expect(storedHooks(s.state, r, "vm0", s.now, settle)).toEqual([]);
    s.send(r);
    // Stored, but not yet long enough to have survived an Azurite crash.
    expect(storedHooks(s.state, r, "vm0", s.now + 1_000, settle)).toEqual([]);
    expect(storedHooks(s.state, r, "vm0", s.now + settle, settle)).toEqual(["E"]);
    expect(storedHooks(s.state, r, "vm0", s.now, 0)).toEqual(["E"]);
    // Storage lost the write (a crash before it was durable): not listed as stored.
    expect(storedHooks(emptyClusterState("web"), r, "vm0", s.now, 0)).toEqual([]);
    // A newer attempt than the stored one is news too.
    const newer = report("vm0", 2, [e], { hooks: [{ eventId: "E", drain: run("succeeded", 2) }] });
    expect(storedHooks(s.state, newer, "vm0", s.now, 0)).toEqual([]);
  });

  it("lists hook states as stored for events it does not track and that are not in the document, so relays can idle", () => {
    const r = report("vm0", 2, [], { hooks: [drained("GONE", "succeeded")] });
    expect(storedHooks(emptyClusterState("web"), r, "vm0", T0, 6_000)).toEqual(["GONE"]);
  });
});
