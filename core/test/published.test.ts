import type { PublishedEventStatus, PublishedObservation } from "@quiesce/protocol/published";
import {
  drained,
  published,
  report,
  run,
  scheduled,
  started,
  T0,
} from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { applyPublished, memberKey } from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * Events Azure publishes off the VM (core/src/rounds/published.ts): they add to what relays report,
 * never take from it; duplicated and reordered deliveries converge; Completed and Canceled end
 * an event, and tell a cancelled event from one that ran.
 */
const id = "9F3A1C2E-5B6D-4E7F-8A9B-0C1D2E3F4A5B";
const scope = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/web";

class PublishedSim extends Sim {
  publish(o: PublishedObservation, advanceMs = 1000) {
    this.now += advanceMs;
    const d = applyPublished(this.state, o, this.now, this.p);
    this.state = d.state;
    return d;
  }
}

describe("events published off the VM", () => {
  it("shows an event no relay reported, as Azure published it, and marks nobody drained", () => {
    const s = new PublishedSim();
    s.publish(published("Scheduled", ["web-0", "web-1"]));
    const e = s.event(id);
    expect(e.phase).toBe("Draining"); // waiting on VMs no relay ever reported for
    expect(e.firstSeenBy).toBe("Event Grid");
    expect(e.resources).toEqual(["web-0", "web-1"]);
    expect(e.published).toMatchObject({ status: "Scheduled", scope });
    expect(e.notBefore).toBe(Date.parse("2022-04-11T22:15:00Z"));
    expect(s.state.readiness[e.key]).toBeUndefined();
    expect(s.blockers(id).map((b) => b.reason)).toEqual(["neverRegistered", "neverRegistered"]);
  });

  it("never shrinks Resources nor marks a VM drained, and matches relays' names without regard to case", () => {
    const s = new PublishedSim();
    const ev = scheduled(id.toUpperCase(), ["WEB-0", "WEB-1"]);
    s.send(report("web-0", 1, []));
    s.send(report("web-0", 2, [ev]));
    const before = s.event(id);
    const was = s.state;
    const d = s.publish(published("Scheduled", ["web-0"]));
    expect(s.event(id).resources).toEqual(["WEB-0", "WEB-1"]);
    expect(d.state).not.toBe(was); // the published view is recorded, nothing else
    expect(s.event(id).phase).toBe(before.phase);
    expect(s.state.readiness[before.key]?.[memberKey("web-0")]?.drain).toBeNull();
    // A VM the relays do not name is added, and blocks approval until it drains or NotBefore.
    s.publish(published("Scheduled", ["web-0", "web-1", "web-2"]));
    expect(s.event(id).resources).toEqual(["WEB-0", "WEB-1", "web-2"]);
    expect(s.blockers(id).some((b) => b.vm === "web-2")).toBe(true);
  });

  it("does not bring back a VM whose own relay reported it no longer named", () => {
    const s = new PublishedSim();
    s.send(report("web-0", 1, []));
    s.send(report("web-1", 1, []));
    s.send(report("web-0", 2, [scheduled(id, ["web-0", "web-1"])]));
    s.send(report("web-1", 3, [scheduled(id, ["web-0"])]));
    s.send(report("web-0", 3, [scheduled(id, ["web-0"])]));
    expect(s.event(id).resources).toEqual(["web-0"]);
    s.publish(published("Scheduled", ["web-0", "web-1"])); // an older view, delivered late
    expect(s.event(id).resources).toEqual(["web-0"]);
  });

  it("changes nothing for a duplicate delivery", () => {
    const s = new PublishedSim();
    s.publish(published("Scheduled", ["web-0"], { observedAt: T0 }));
    const state = s.state;
    const d = s.publish(published("Scheduled", ["web-0"], { observedAt: T0 }));
    expect(d.state).toBe(state);
  });

  it("tells an event Azure cancelled from one that ran, for events no relay saw", () => {
    const cancelled = new PublishedSim();
    cancelled.publish(published("Scheduled", ["db-0"]));
    cancelled.publish(published("Canceled", ["db-0"]));
    expect(cancelled.phase(id)).toBe("Cancelled");

    // Started was never delivered: Completed still says it ran.
    const ran = new PublishedSim();
    ran.publish(published("Scheduled", ["db-0"]));
    ran.publish(published("Completed", ["db-0"]));
    expect(ran.phase(id)).toBe("Completed");
    expect(ran.event(id).status).toBe("Started");

    // Approved through the control plane, then Canceled by Azure: still cancelled.
    const approvedThenCancelled = new PublishedSim();
    approvedThenCancelled.publish(published("Scheduled", ["db-0"]));
    approvedThenCancelled.state = {
      ...approvedThenCancelled.state,
      events: {
        ...approvedThenCancelled.state.events,
        [id.toLowerCase()]: {
          ...approvedThenCancelled.event(id),
          approvedAt: T0,
          approvedBy: "control-plane",
        },
      },
    };
    approvedThenCancelled.publish(published("Canceled", ["db-0"]));
    expect(approvedThenCancelled.phase(id)).toBe("Cancelled");
  });

  it("ends a relay-reported event on Completed, and leaves the recover to each relay's document", () => {
    const s = new PublishedSim();
    const ev = scheduled(id, ["web-0"]);
    s.send(report("web-0", 1, []));
    s.send(report("web-0", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("web-0", 3, [started(ev)], { hooks: [drained(id)] }));
    s.publish(published("Completed", ["web-0"]));
    expect(s.phase(id)).toBe("Recovering");
    // The relay still has it in its document: no recover directive, and its document does not revive it.
    const d = s.send(report("web-0", 3, [started(ev)], { hooks: [drained(id)] }));
    expect(d.reply.directives).toEqual([]);
    expect(s.phase(id)).toBe("Recovering");
    s.send(
      report("web-0", 4, [], {
        hooks: [{ eventId: id, drain: run("succeeded"), recover: run("succeeded") }],
      }),
    );
    expect(s.phase(id)).toBe("Completed");
  });

  it("takes Event Grid's Started, arriving before the elected relay's confirmation, as the relay's approval in flight", () => {
    const s = new PublishedSim();
    const ev = scheduled(id, ["web-0"]);
    s.send(report("web-0", 1, []));
    const elected = s.send(report("web-0", 2, [ev], { hooks: [drained(id)] }));
    expect(elected.reply.directives[0]).toMatchObject({ kind: "approve" });
    s.publish(published("Started", ["web-0"]));
    expect(s.phase(id)).toBe("Started"); // not ExpiredAtNotBefore: the lease is held
    s.send(
      report("web-0", 3, [started(ev)], {
        hooks: [drained(id)],
        approvals: [
          { eventId: id, outcome: "accepted", at: new Date(T0).toISOString(), httpStatus: 200 },
        ],
      }),
    );
    expect(s.event(id)).toMatchObject({ phase: "Started", approvedBy: "web-0" });
    expect(s.state.events[id.toLowerCase()]?.approvedAt).toBe(s.now);
  });

  it("converges to the same phase whatever the order and repetition of the deliveries", () => {
    const steps = [
      published("Scheduled", ["web-0"], { observedAt: T0 + 1 }),
      published("Started", ["web-0"], { observedAt: T0 + 2 }),
      published("Completed", ["web-0"], { observedAt: T0 + 3 }),
    ];
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
      [0, 0, 1, 1, 2, 2],
      [2, 2, 0, 1, 0],
    ];
    const outcomes = orders.map((order) => {
      const s = new PublishedSim();
      for (const i of order) s.publish(steps[i] as PublishedObservation);
      s.tick(1000);
      const e = s.event(id);
      return {
        phase: e.phase,
        status: e.status,
        published: e.published?.status,
        resources: e.resources,
      };
    });
    for (const o of outcomes)
      expect(o).toEqual({
        phase: "Completed",
        status: "Started",
        published: "Completed",
        resources: ["web-0"],
      });
  });
});

describe("the orders issue 29 found diverging (published.property.test.ts proves every order)", () => {
  const outcome = (statuses: PublishedEventStatus[]) => {
    const s = new PublishedSim();
    for (const st of statuses) s.publish(published(st, ["web-0"]), 0);
    const { notBefore, firstSeenStarted, phase, status, published: view } = s.event(id);
    return { notBefore, firstSeenStarted, phase, status, published: view?.status };
  };

  it("keeps the Scheduled delivery's NotBefore whenever it arrives", () => {
    expect(outcome(["Completed", "Started", "Scheduled"])).toEqual(
      outcome(["Scheduled", "Started", "Completed"]),
    );
    expect(outcome(["Completed", "Started", "Scheduled"]).notBefore).toBe(
      Date.parse("2022-04-11T22:15:00Z"),
    );
    expect(outcome(["Canceled", "Scheduled"])).toEqual(outcome(["Scheduled", "Canceled"]));
  });

  it("takes an event for unannounced from what was delivered, not from which came first", () => {
    expect(outcome(["Completed", "Started"])).toEqual(outcome(["Started", "Completed"]));
    expect(outcome(["Completed", "Started"]).firstSeenStarted).toBe(true);
  });
});

describe("Terminate in a scale set", () => {
  it("is approved by the VM it deletes, never by a neighbour, and two at once each get their own", () => {
    const s = new Sim(policy({ maxEventsInFlight: 1 }));
    const t0 = scheduled("11111111-0000-4000-8000-000000000001", ["vmss_0"], {
      EventType: "Terminate",
    });
    const t1 = scheduled("22222222-0000-4000-8000-000000000002", ["vmss_1"], {
      EventType: "Terminate",
    });
    for (const vm of ["vmss_0", "vmss_1", "vmss_2"]) s.send(report(vm, 1, []));
    // The neighbour sees both and reports first: it is never elected.
    expect(approveIds(s.send(report("vmss_2", 2, [t0, t1])))).toEqual([]);
    const a0 = s.send(report("vmss_0", 2, [t0, t1], { hooks: [drained(t0.EventId)] }));
    const a1 = s.send(report("vmss_1", 2, [t0, t1], { hooks: [drained(t1.EventId)] }));
    expect(approveIds(a0)).toEqual([t0.EventId]);
    expect(approveIds(a1)).toEqual([t1.EventId]); // the budget of 1 does not hold the second back
    // vmss_0's lease runs out unconfirmed: the neighbour, which sees t0 Scheduled, still never approves it.
    s.tick(31_000);
    expect(s.event(t0.EventId).failedApprovers).toEqual(["vmss_0"]);
    expect(approveIds(s.send(report("vmss_2", 2, [t0, t1])))).toEqual([]);
    expect(s.event(t0.EventId).lease).toBeNull();
  });
});
