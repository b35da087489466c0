import { ScheduledEventsDocument } from "@quiesce/protocol/imds";
import { drained, report, run, scheduled, started } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import seedStream from "../../test/fixtures/seed-freeze-stream.json";
import { applyReport, explain } from "../src";
import { approveIds, Sim } from "./fixtures";

/**
 * An event's paths through the state machine: the seeds' stream end to end, every other exit
 * (Cancelled, Preempt, Unplanned, ExpiredAtNotBefore), election and re-election of the approver.
 */
describe("the seeds' example stream (Freeze on WestNO_0 and WestNO_1, incarnations 1 to 4)", () => {
  it("walks Observed → Draining → Approving → Started → Recovering → Completed and elects the relay that completes readiness", () => {
    const s = new Sim();
    const docs = seedStream.map((d) => ScheduledEventsDocument.parse(d));
    const at = (i: number) => docs[i] as ScheduledEventsDocument;
    const id = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    const key = id.toLowerCase();
    const send = (vm: string, i: number, o: Parameters<typeof report>[3] = {}) =>
      s.send(report(vm, at(i).DocumentIncarnation, at(i).Events, o));
    expect(send("WestNO_0", 0).reply.directives).toEqual([]);
    send("WestNO_1", 0);
    send("WestNO_0", 1, { hooks: [{ eventId: id, drain: run("running") }] });
    expect(s.phase(id)).toBe("Draining");
    send("WestNO_1", 1, { hooks: [{ eventId: id, drain: run("running") }] });
    expect(approveIds(send("WestNO_0", 1, { hooks: [drained(id)] }))).toEqual([]);
    expect(explain(s.state, key, s.now, s.p)?.blockers.map((b) => b.vm)).toEqual(["WestNO_1"]);
    const completing = send("WestNO_1", 1, { hooks: [drained(id)] });
    expect(approveIds(completing)).toEqual([id]);
    expect(s.phase(id)).toBe("Approving");
    expect(s.state.events[key]?.approvalRule).toBe("allDrained");
    send("WestNO_1", 1, {
      hooks: [drained(id)],
      approvals: [
        { eventId: id, outcome: "accepted", at: new Date(s.now).toISOString(), httpStatus: 200 },
      ],
    });
    expect(s.state.events[key]?.approvedBy).toBe("WestNO_1");
    send("WestNO_0", 2, { hooks: [drained(id)] });
    expect(s.phase(id)).toBe("Started");
    const startedAt = s.now;
    send("WestNO_0", 3, { hooks: [drained(id, "running")] });
    expect(s.phase(id)).toBe("Recovering");
    send("WestNO_0", 3, { hooks: [drained(id, "succeeded")] });
    expect(s.phase(id)).toBe("Recovering");
    send("WestNO_1", 3, { hooks: [drained(id, "succeeded")] });
    expect(s.phase(id)).toBe("Completed");
    expect(s.state.events[key]?.startedAt).toBe(startedAt);
  });
});

describe("lifecycle paths", () => {
  const id = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
  const ev = scheduled(id, ["vm0", "vm1"]);
  const registerBoth = (s: Sim) => {
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
  };

  it("records Cancelled when the event leaves the document while still Scheduled, and asks a drained relay that lost track to recover", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("vm0", 3, [], { hooks: [drained(id)] }));
    expect(s.phase(id)).toBe("Cancelled");
    const d = s.send(report("vm0", 3, [], { hooks: [drained(id)] }));
    expect(d.reply.directives).toEqual([{ kind: "recover", eventId: id }]);
    const stillDraining = s.send(
      report("vm0", 3, [], { hooks: [{ eventId: id, drain: run("running") }] }),
    );
    expect(stillDraining.reply.directives).toEqual([]);
  });

  it("completes a Preempt as soon as it leaves the document: the Spot VM is deleted, no recover is owed", () => {
    const s = new Sim();
    registerBoth(s);
    const preempt = scheduled(id, ["vm0"], { EventType: "Preempt", DurationInSeconds: -1 });
    expect(approveIds(s.send(report("vm0", 2, [preempt], { hooks: [drained(id)] })))).toEqual([id]);
    s.send(
      report("vm0", 2, [preempt], {
        hooks: [drained(id)],
        approvals: [{ eventId: id, outcome: "accepted", at: new Date(s.now).toISOString() }],
      }),
    );
    s.send(report("vm1", 3, [started(preempt)]));
    s.send(report("vm1", 4, []));
    expect(s.phase(id)).toBe("Completed");
  });

  it("ends a started Preempt in the sweep once no live relay sees it (a Spot VM alone in its group is deleted with its relay)", () => {
    const s = new Sim();
    const preempt = scheduled(id, ["spot"], { EventType: "Preempt", DurationInSeconds: -1 });
    s.send(report("spot", 1, []));
    s.send(report("spot", 2, [preempt], { hooks: [drained(id)] }));
    s.send(
      report("spot", 2, [preempt], {
        hooks: [drained(id)],
        approvals: [{ eventId: id, outcome: "accepted", at: new Date(s.now).toISOString() }],
      }),
    );
    s.send(report("spot", 3, [started(preempt)], { hooks: [drained(id)] }));
    expect(s.phase(id)).toBe("Started");
    s.tick(30_000);
    expect(s.phase(id)).toBe("Started"); // the relay is still live: wait for it
    const d = s.tick(90_000);
    expect(s.phase(id)).toBe("Completed");
    expect(d.transitions.map((t) => t.reason)).toContain(
      "Preempt started and no live relay still sees it: its VMs are gone",
    );
  });

  it("records Unplanned when the first sight is already Started (hardware failure) and never directs an approval", () => {
    const s = new Sim();
    registerBoth(s);
    const d = s.send(report("vm0", 2, [started(ev)], { hooks: [drained(id)] }));
    expect(s.phase(id)).toBe("Unplanned");
    expect(approveIds(d)).toEqual([]);
    s.send(report("vm0", 3, []));
    expect(["Recovering", "Completed"]).toContain(s.phase(id));
  });

  it("records ExpiredAtNotBefore when NotBefore passes before every VM drained", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    s.tick(16 * 60_000);
    expect(s.phase(id)).toBe("ExpiredAtNotBefore");
    const d = s.send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
    expect(approveIds(d)).toEqual([]);
  });

  it("compares EventIds without regard to case but echoes the relay's own spelling", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    const lower = scheduled(id.toLowerCase(), ["vm0", "vm1"]);
    const d = s.send(report("vm1", 2, [lower], { hooks: [drained(id.toLowerCase())] }));
    expect(approveIds(d)).toEqual([id.toLowerCase()]);
    expect(Object.keys(s.state.events)).toEqual([id.toLowerCase()]);
  });

  it("never elects a relay whose VM only neighbours the event when that relay is the one reporting", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm2", 1, []));
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("vm1", 2, [ev], { hooks: [{ eventId: id, drain: run("running") }] }));
    // vm2 sees the event (same availability set) but is not affected; it may approve once all drained.
    expect(approveIds(s.send(report("vm2", 2, [ev])))).toEqual([]);
    s.send(report("vm1", 2, [], { hooks: [drained(id)] }), 0); // vm1's stale-doc race: not its latest
    expect(s.state.readiness[id.toLowerCase()]?.vm2?.affected).toBe(false);
  });

  it("re-elects another relay when the approval lease expires, skipping the failed approver", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    const d1 = s.send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
    expect(approveIds(d1)).toEqual([id]);
    s.tick(31_000);
    expect(s.state.events[id.toLowerCase()]?.failedApprovers).toEqual(["vm1"]);
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([]);
    expect(approveIds(s.send(report("vm0", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
  });

  it("hears an approver whose lease ran out before its answer arrived: an event IMDS started is never recorded as cancelled", () => {
    const s = new Sim();
    const key = id.toLowerCase();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
    const accepted = [
      { eventId: id, outcome: "accepted" as const, at: new Date(s.now).toISOString() },
    ];
    // The coordinator hears nothing (it was down): vm1's lease runs out, and Azure runs the
    // event and ends it, so the next documents no longer hold it.
    s.tick(31_000);
    expect(s.state.events[key]?.failedApprovers).toEqual(["vm1"]);
    s.send(report("vm0", 4, [], { hooks: [drained(id, "succeeded")] }));
    expect(s.phase(id)).toBe("Cancelled");
    // A relay never elected for it cannot make it approved.
    s.send(report("vm0", 4, [], { hooks: [drained(id, "succeeded")], approvals: accepted }));
    expect(s.state.events[key]?.approvedAt).toBeNull();
    expect(s.phase(id)).toBe("Cancelled");
    s.send(report("vm1", 4, [], { hooks: [drained(id, "succeeded")], approvals: accepted }));
    expect(s.state.events[key]?.approvedBy).toBe("vm1");
    expect(s.phase(id)).toBe("Completed");
  });

  it("keeps waiting for recovers of an event taken for cancelled until its late approver is heard", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
    const accepted = [
      { eventId: id, outcome: "accepted" as const, at: new Date(s.now).toISOString() },
    ];
    s.tick(31_000);
    s.send(report("vm0", 4, [], { hooks: [drained(id, "running")] }));
    expect(s.phase(id)).toBe("Cancelled");
    s.send(report("vm1", 4, [], { hooks: [drained(id, "succeeded")], approvals: accepted }));
    expect(s.phase(id)).toBe("Recovering");
    s.send(report("vm0", 4, [], { hooks: [drained(id, "succeeded")] }));
    expect(s.phase(id)).toBe("Completed");
  });

  it("elects another relay at once when the approver reports IMDS rejected the StartRequests", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
    const failed = s.send(
      report("vm1", 2, [ev], {
        hooks: [drained(id)],
        approvals: [
          { eventId: id, outcome: "rejected", at: new Date(s.now).toISOString(), httpStatus: 400 },
        ],
      }),
    );
    expect(approveIds(failed)).toEqual([]);
    expect(approveIds(s.send(report("vm0", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
  });

  it("re-evaluates an event whose Resources change between incarnations", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm2", 1, []));
    expect(
      approveIds(s.send(report("vm0", 2, [scheduled(id, ["vm0"])], { hooks: [drained(id)] }))),
    ).toEqual([id]);
    // Before the approval is confirmed, a newer incarnation adds vm1: it must drain too.
    const grown = scheduled(id, ["vm0", "vm1"]);
    const d = s.send(report("vm2", 3, [grown]));
    expect(approveIds(d)).toEqual([]);
    expect(s.phase(id)).toBe("Draining");
    expect(approveIds(s.send(report("vm0", 3, [grown], { hooks: [drained(id)] })))).toEqual([]);
    expect(s.state.events[id.toLowerCase()]?.resources).toEqual(["vm0", "vm1"]);
    expect(approveIds(s.send(report("vm1", 3, [grown], { hooks: [drained(id)] })))).toEqual([id]);
  });

  it("re-decides only the events a report concerns: another event loaded without its readiness keeps its phase", () => {
    const s = new Sim();
    registerBoth(s);
    const a = scheduled("aaaa", ["vm0"]);
    const b = scheduled("bbbb", ["vm1"]);
    s.send(report("vm1", 2, [b], { hooks: [{ eventId: "bbbb", drain: run("running") }] }));
    expect(s.phase("bbbb")).toBe("Draining");
    // The store loads B (for the budget) but not its readiness when vm0 reports only A.
    const partial = { ...s.state, readiness: { aaaa: s.state.readiness.aaaa ?? {} } };
    const before = partial.events.bbbb;
    const d = applyReport(partial, report("vm0", 2, [a]), s.now + 1000, s.p);
    expect(d.state.events.bbbb).toBe(before);
  });

  it("ignores a report older than the applied incarnation and returns the very same state", () => {
    const s = new Sim();
    registerBoth(s);
    s.send(report("vm0", 5, [ev], { hooks: [drained(id)] }));
    const before = s.state;
    const d = s.send(report("vm0", 4, []));
    expect(d.reply.applied).toBe(false);
    expect(d.state).toBe(before);
  });

  it("never elects a dry-run relay", () => {
    const s = new Sim();
    s.send(report("vm0", 1, [], { dryRun: true }));
    s.send(report("vm1", 1, []));
    s.send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
    expect(
      approveIds(s.send(report("vm0", 2, [ev], { hooks: [drained(id)], dryRun: true }))),
    ).toEqual([]);
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
  });
});
