import { drained, report, run, scheduled, started } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  type BackendMembership,
  dueLoadBalancerActions,
  explain,
  type LoadBalancerStep,
  recordLoadBalancerStep,
} from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/** Load-balancer drain (core/src/rules/loadBalancer.ts): what is due, and when a VM counts as drained. */
const id = "E7061BAC-AFDC-4513-B24B-AA5F13A16123";
const key = id.toLowerCase();
const ev = scheduled(id, ["vm0"]);
const lbPolicy = () => policy({ loadBalancerDrain: { enabled: true, settleSeconds: 30 } });
const pool: BackendMembership = {
  poolId: "/lb/pool",
  ipConfigurationId: "/nic/ip",
  previous: "None",
};
const step = (s: Sim, state: LoadBalancerStep["state"], extra: Partial<LoadBalancerStep> = {}) => {
  const r = recordLoadBalancerStep(
    s.state,
    key,
    "vm0",
    { state, pools: [pool], since: s.now, downAt: null, error: null, ...extra },
    state,
    s.now,
  );
  if (r) s.state = r.state;
};
const kinds = (s: Sim) =>
  dueLoadBalancerActions(s.state, s.now, s.p).map((a) => `${a.kind}:${a.memberKey}`);

describe("load-balancer drain", () => {
  it("a drained VM counts only once its admin state is Down and the settle time passed", () => {
    const s = new Sim(lbPolicy());
    expect(approveIds(s.send(report("vm0", 1, [ev], { hooks: [drained(id)] })))).toEqual([]);
    expect(kinds(s)).toEqual(["takeDown:vm0"]);
    expect(explain(s.state, key, s.now, s.p)?.blockers[0]).toMatchObject({
      reason: "loadBalancerDrain",
    });
    step(s, "goingDown");
    expect(kinds(s)).toEqual(["takeDown:vm0"]); // a crash here: the next sweep finishes the step
    step(s, "down", { downAt: s.now });
    expect(kinds(s)).toEqual([]);
    expect(approveIds(s.send(report("vm0", 1, [ev], { hooks: [drained(id)] }), 29_000))).toEqual(
      [],
    );
    expect(approveIds(s.send(report("vm0", 1, [ev], { hooks: [drained(id)] }), 2_000))).toEqual([
      id,
    ]);
  });

  it("a VM in no load balancer counts as soon as it drained", () => {
    const s = new Sim(lbPolicy());
    s.send(report("vm0", 1, [ev]));
    step(s, "notInLoadBalancer");
    expect(approveIds(s.send(report("vm0", 1, [ev], { hooks: [drained(id)] })))).toEqual([id]);
  });

  it("restores only after the event left the document and the recover hook succeeded", () => {
    const s = new Sim(lbPolicy());
    s.send(report("vm0", 1, [ev], { hooks: [drained(id)] }));
    step(s, "down", { downAt: s.now });
    s.send(report("vm0", 2, [started(ev)], { hooks: [drained(id)] }), 31_000);
    expect(kinds(s)).toEqual([]);
    s.send(
      report("vm0", 3, [], {
        hooks: [
          {
            eventId: id,
            drain: drained(id).drain,
            recover: { status: "running", attempt: 1, startedAt: new Date(s.now).toISOString() },
          },
        ],
      }),
    );
    expect(kinds(s)).toEqual([]);
    s.send(report("vm0", 3, [], { hooks: [drained(id, "failed")] }));
    expect(kinds(s)).toEqual([]); // a failed recover leaves the VM out of the load balancer
    s.send(report("vm0", 3, [], { hooks: [{ ...drained(id), recover: run("succeeded", 2) }] }));
    expect(dueLoadBalancerActions(s.state, s.now, s.p)).toMatchObject([
      { kind: "restore", pools: [pool] },
    ]);
  });

  it("a step cut short after its write (goingDown) is restored once the event left and recovered", () => {
    const s = new Sim(lbPolicy());
    s.send(report("vm0", 1, [ev], { hooks: [drained(id)] }));
    step(s, "goingDown"); // the coordinator died before recording "down"
    s.send(report("vm0", 2, [], { hooks: [{ ...drained(id), recover: run("succeeded", 2) }] }));
    expect(dueLoadBalancerActions(s.state, s.now, s.p)).toMatchObject([
      { kind: "restore", pools: [pool] },
    ]);
  });

  it("keeps an event that left unseen as Started open (Recovering) until its VMs are back in their load balancer, then Cancelled", () => {
    const s = new Sim(lbPolicy());
    s.send(report("vm0", 1, [ev], { hooks: [drained(id)] }));
    step(s, "down", { downAt: s.now });
    // Gone from the document with the coordinator never having seen it Started.
    s.send(report("vm0", 2, [], { hooks: [{ ...drained(id), recover: run("succeeded", 2) }] }));
    expect(s.phase(id)).toBe("Recovering"); // not ended: the sweep keeps visiting it
    step(s, "restored");
    s.tick(1000);
    expect(s.phase(id)).toBe("Cancelled");
  });

  it("never takes down a VM for an event already approved, and never with the policy off", () => {
    const s = new Sim(policy());
    s.send(report("vm0", 1, [ev], { hooks: [drained(id)] }));
    expect(kinds(s)).toEqual([]);
  });

  it("a VM deleted by its Preempt has nothing to restore; one still held by another event is handed over", () => {
    const s = new Sim(lbPolicy());
    const preempt = scheduled(id, ["vm0"], { EventType: "Preempt" });
    s.send(report("vm0", 1, [preempt], { hooks: [drained(id)] }));
    step(s, "down", { downAt: s.now });
    s.send(report("vm0", 2, [], { hooks: [drained(id, "succeeded")] }));
    const d = s.tick(1000);
    expect(s.state.readiness[key]?.vm0?.loadBalancer?.state).toBe("gone");
    expect(d.transitions.map((t) => t.reason)).toContain(
      "vm0 was deleted by the Preempt: no admin state to restore",
    );
    expect(kinds(s)).toEqual([]);
  });

  it("a second event of a VM already Down inherits the first one's previous states, and the first hands over", () => {
    const s = new Sim(lbPolicy());
    const other = scheduled("F7061BAC-AFDC-4513-B24B-AA5F13A16123", ["vm0"]);
    s.send(report("vm0", 1, [ev], { hooks: [drained(id)] }));
    step(s, "down", { downAt: s.now });
    s.send(report("vm0", 2, [ev, other], { hooks: [drained(id)] }));
    const take = dueLoadBalancerActions(s.state, s.now, s.p).find((a) => a.kind === "takeDown");
    expect(take).toMatchObject({ eventId: other.EventId, inherit: { pools: [pool] } });
    const otherKey = other.EventId.toLowerCase();
    const held = recordLoadBalancerStep(
      s.state,
      otherKey,
      "vm0",
      { state: "down", pools: [pool], since: s.now, downAt: s.now, error: null },
      "down",
      s.now,
    );
    s.state = held?.state ?? s.state;
    s.send(report("vm0", 3, [other], { hooks: [drained(id, "succeeded")] }));
    expect(kinds(s).filter((k) => k.startsWith("restore"))).toEqual([]);
    s.tick(1000);
    expect(s.state.readiness[key]?.vm0?.loadBalancer).toMatchObject({
      state: "handedOver",
      handedTo: other.EventId.toLowerCase(),
    });
  });
});
