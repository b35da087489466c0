import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { drained, published, report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  applyPublished,
  coverage,
  dueAcknowledges,
  dueAgentlessHooks,
  dueLoadBalancerActions,
  eventsInFlight,
  explain,
  isAdvisoryEvent,
} from "../src";
import { budgetOrder } from "../src/rules/budgetOrder";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * Advisory events (core/src/model/eventTypes.ts): a Spot rebalance recommendation is news, not
 * maintenance. Nobody is elected for it, it holds no budget, nothing drains for it, it never
 * delays a real event of the same VM, and it stays Observed until it leaves, then ends Completed.
 */
const rebalanceId = "5B0A1D2C-0000-4E7F-8A9B-0C1D2E3F4A5B";
const freezeId = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
const rebalance = scheduled(rebalanceId, ["vm0"], {
  EventType: "SpotRebalanceRecommendation",
  DurationInSeconds: -1,
  Description: "",
});
const freeze = scheduled(freezeId, ["vm0"]);
const rebalanceKey = rebalanceId.toLowerCase();

describe("advisory events (Spot rebalance recommendations)", () => {
  it("never elects a relay for one, even when its VM reports it drained, and explains why", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    const d = s.send(report("vm0", 2, [rebalance], { hooks: [drained(rebalanceId)] }));
    expect(approveIds(d)).toEqual([]);
    expect(s.phase(rebalanceId)).toBe("Observed");
    expect(isAdvisoryEvent(s.event(rebalanceId))).toBe(true);
    const why = explain(s.state, rebalanceKey, s.now, s.p);
    expect(why?.blockers).toEqual([]);
    expect(why?.waitingFor).toBe(
      "advisory: Spot rebalance recommendation, nothing to approve (acknowledging it has no effect)",
    );
    // Past its NotBefore too: nothing starts it, so nothing was missed.
    const later = s.send(report("vm0", 2, [rebalance]), 20 * 60_000);
    expect(approveIds(later)).toEqual([]);
    s.tick(1000);
    expect(s.phase(rebalanceId)).toBe("Observed");
  });

  it("does not hold back a Freeze on the same VM under a budget of one event in flight", () => {
    const s = new Sim(policy({ maxEventsInFlight: 1 }));
    s.send(report("vm0", 1, []));
    // Its relay drains for it (as a relay of an earlier release does for any event).
    const hooks = [drained(rebalanceId), drained(freezeId)];
    expect(
      approveIds(s.send(report("vm0", 2, [rebalance], { hooks: [drained(rebalanceId)] }))),
    ).toEqual([]);
    const d = s.send(report("vm0", 3, [rebalance, freeze], { hooks }));
    expect(approveIds(d)).toEqual([freezeId]);
    expect(s.phase(freezeId)).toBe("Approving");
    expect(s.phase(rebalanceId)).toBe("Observed");
  });

  it("never counts against the budget, nor goes first in budget order, whatever phase an earlier release stored", () => {
    const s = new Sim(policy({ maxEventsInFlight: 1 }));
    s.send(report("vm0", 1, []));
    s.send(report("vm0", 2, [rebalance]));
    // A row of a release that took it for maintenance: elected, approving.
    const old = { ...s.event(rebalanceId), phase: "Approving" as const };
    s.state = { ...s.state, events: { ...s.state.events, [rebalanceKey]: old } };
    expect(eventsInFlight(s.state, "none")).toEqual([]);
    const d = s.send(report("vm0", 3, [rebalance, freeze], { hooks: [drained(freezeId)] }));
    expect(approveIds(d)).toEqual([freezeId]);
    expect(s.phase(rebalanceId)).toBe("Observed");
    expect(budgetOrder(s.event(freezeId), old)).toBeLessThan(0);
  });

  it("ends Completed, never Cancelled, when it leaves the document", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    s.send(report("vm0", 2, [rebalance]));
    s.send(report("vm0", 3, []));
    expect(s.phase(rebalanceId)).toBe("Completed");
  });

  it("ends at the sweep once no live relay shows it (its Spot VM evicted with its relay)", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    s.send(report("vm0", 2, [rebalance]));
    s.tick((s.p.livenessTimeoutSeconds + 1) * 1000);
    expect(s.phase(rebalanceId)).toBe("Completed");
  });

  it("neither takes its VM out of a load balancer nor runs agentless drain hooks for it", () => {
    const hook = { url: "https://drain.example/{vmName}", timeoutSeconds: 10 };
    const s = new Sim(
      policy({
        loadBalancerDrain: { enabled: true, settleSeconds: 30 },
        agentless: { enabled: true, drain: hook, recover: hook, maxAttempts: 2 },
      }),
    );
    s.send(report("vm0", 1, []));
    s.send(report("vm0", 2, [{ ...rebalance, Resources: ["vm0", "vm9"] }]));
    expect(dueLoadBalancerActions(s.state, s.now, s.p)).toEqual([]);
    expect(dueAgentlessHooks(s.state, s.now, s.p)).toEqual([]);
  });
});

describe("a published advisory event (Event Grid, Resource Graph)", () => {
  it("is never due for the control plane, nor drained for a VM without a relay", () => {
    const hook = { url: "https://drain.example/{vmName}", timeoutSeconds: 10 };
    const s = new Sim(
      policy({
        controlPlaneApproval: { ...DEFAULT_POLICY.controlPlaneApproval, mode: "fallback" },
        agentless: { enabled: true, drain: hook, recover: hook, maxAttempts: 2 },
      }),
    );
    s.now += 1000;
    const obs = published("Scheduled", ["web-0"], {
      eventType: "SpotRebalanceRecommendation",
    });
    s.state = applyPublished(s.state, obs, s.now, s.p).state;
    const key = obs.event.EventId;
    expect(s.state.events[key]?.phase).toBe("Observed");
    s.tick(10 * 60_000);
    expect(s.state.events[key]?.phase).toBe("Observed");
    expect(s.state.events[key]?.lease).toBeNull();
    expect(dueAcknowledges(s.state, s.now)).toEqual([]);
    expect(dueAgentlessHooks(s.state, s.now, s.p)).toEqual([]);
    // Nothing is owed to web-0 for it, so no "names VMs without a relay" alert either; a real
    // event of the same VM still raises one.
    expect(coverage(s.state, s.now, s.p).unregistered).toEqual([]);
    const freeze = published("Scheduled", ["web-0"]);
    s.state = applyPublished(s.state, freeze, s.now, s.p).state;
    expect(coverage(s.state, s.now, s.p).unregistered.map((u) => u.vms)).toEqual([["web-0"]]);
    // Azure's Completed ends it, as it ends any published event.
    s.now += 1000;
    s.state = applyPublished(
      s.state,
      published("Completed", ["web-0"], { eventType: "SpotRebalanceRecommendation" }),
      s.now,
      s.p,
    ).state;
    expect(s.state.events[key]?.phase).toBe("Completed");
  });
});
