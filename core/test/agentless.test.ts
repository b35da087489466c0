import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { drained, published, report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  type AgentlessRun,
  applyPublished,
  CLAIM_GRACE_MS,
  CONTROL_PLANE,
  claimAgentlessHook,
  dueAcknowledges,
  dueAgentlessHooks,
  recordAgentlessHook,
} from "../src";
import { policy, Sim } from "./fixtures";

/**
 * Agentless VMs (core/src/rounds/agentless.ts): the coordinator drains VMs that have no relay through
 * the operator's HTTP hooks, claimed once and recorded, then approves through ARM at once when
 * no relay can; mixed events wait for both kinds of VM.
 */
const id = "9F3A1C2E-5B6D-4E7F-8A9B-0C1D2E3F4A5B";
const hook = { url: "https://drain.example/{vmName}", timeoutSeconds: 10 };
const agentless = (over: object = {}) =>
  policy({
    agentless: { enabled: true, drain: hook, recover: hook, maxAttempts: 2, ...over },
    controlPlaneApproval: { ...DEFAULT_POLICY.controlPlaneApproval, mode: "fallback" },
  });

class AgentlessSim extends Sim {
  publish(status: Parameters<typeof published>[0], resources: string[]) {
    this.now += 1000;
    this.state = applyPublished(this.state, published(status, resources), this.now, this.p).state;
  }
  due() {
    return dueAgentlessHooks(this.state, this.now, this.p);
  }
  claim(r: AgentlessRun) {
    const c = claimAgentlessHook(this.state, r, this.now, this.p);
    if (c) this.state = c.state;
    return c;
  }
  finish(r: AgentlessRun, result: "succeeded" | "failed", advanceMs = 1000) {
    this.now += advanceMs;
    const c = recordAgentlessHook(
      this.state,
      r,
      { result, detail: "HTTP 200", startedAt: this.now - advanceMs },
      this.now,
      this.p,
    );
    if (c) this.state = c.state;
    return c;
  }
  drainAll() {
    for (const r of this.due()) {
      this.claim(r);
      this.finish(r, "succeeded");
    }
  }
}

describe("agentless VMs", () => {
  it("drains each VM without a relay once, then the control plane takes the lease at once", () => {
    const s = new AgentlessSim(agentless());
    s.publish("Scheduled", ["app-0", "app-1"]);
    const due = s.due();
    expect(due.map((d) => [d.vm, d.hook, d.attempt])).toEqual([
      ["app-0", "drain", 1],
      ["app-1", "drain", 1],
    ]);
    const first = due[0] as AgentlessRun;
    expect(s.claim(first)?.claimed).toBe(true);
    expect(s.claim(first)).toBeNull(); // claimed: a second instance finds nothing to do
    expect(s.blockers(id).map((b) => b.reason)).toEqual(["draining", "drainPending"]);
    s.finish(first, "succeeded");
    expect(s.phase(id)).toBe("Draining");
    const second = s.due()[0] as AgentlessRun;
    s.claim(second);
    s.finish(second, "succeeded");
    // Ready, and no relay can approve: the control plane holds the lease without waiting afterSeconds.
    expect(s.event(id).lease).toMatchObject({ holder: CONTROL_PLANE, via: "controlPlane" });
    expect(s.phase(id)).toBe("Approving");
    expect(dueAcknowledges(s.state, s.now).map((a) => a.eventKey)).toEqual([id.toLowerCase()]);
  });

  it("retries a run whose instance died, and gives up after maxAttempts as failed", () => {
    const s = new AgentlessSim(agentless());
    s.publish("Scheduled", ["app-0"]);
    s.claim(s.due()[0] as AgentlessRun);
    expect(s.due()).toEqual([]);
    s.now += 10_000 + CLAIM_GRACE_MS;
    const retry = s.due()[0] as AgentlessRun;
    expect(retry.attempt).toBe(2);
    s.claim(retry);
    s.now += 10_000 + CLAIM_GRACE_MS;
    const last = s.due()[0] as AgentlessRun;
    expect(s.claim(last)?.claimed).toBe(false);
    expect(s.blockers(id).map((b) => b.reason)).toEqual(["drainFailed"]);
    expect(s.due()).toEqual([]);
  });

  it("runs the recover hook only once Azure says the event is over, and stays Recovering until then", () => {
    const s = new AgentlessSim(agentless());
    s.publish("Scheduled", ["app-0"]);
    s.drainAll();
    s.publish("Started", ["app-0"]);
    expect(s.due()).toEqual([]);
    s.publish("Completed", ["app-0"]);
    expect(s.phase(id)).toBe("Recovering");
    const r = s.due()[0] as AgentlessRun;
    expect([r.vm, r.hook]).toEqual(["app-0", "recover"]);
    s.claim(r);
    s.finish(r, "succeeded");
    s.tick(1000);
    expect(s.phase(id)).toBe("Completed");
  });

  it("recovers a drained VM of an event Azure cancelled", () => {
    const s = new AgentlessSim(agentless());
    s.publish("Scheduled", ["app-0"]);
    s.drainAll();
    s.publish("Canceled", ["app-0"]);
    expect(s.phase(id)).toBe("Recovering");
    s.drainAll(); // the recover
    s.tick(1000);
    expect(s.phase(id)).toBe("Cancelled");
  });

  it("in a mixed event, waits for the relay's drain and the coordinator's, and a relay approves", () => {
    const s = new AgentlessSim(agentless());
    const ev = scheduled(id, ["web-0", "app-0"]);
    s.send(report("web-0", 1, []));
    s.send(report("web-0", 2, [ev], { hooks: [drained(id)] }));
    expect(s.blockers(id).map((b) => [b.vm, b.reason])).toEqual([["app-0", "drainPending"]]);
    expect(s.due().map((d) => d.vm)).toEqual(["app-0"]); // never the relay's VM
    s.drainAll();
    expect(s.event(id).lease).toBeNull(); // a relay can approve: the control plane waits afterSeconds
    const d = s.send(report("web-0", 2, [ev], { hooks: [drained(id)] }));
    expect(d.reply.directives[0]).toMatchObject({ kind: "approve", eventIds: [id] });
  });

  it("completes a claim and a record whose commits stopped after their readiness row: the retry writes their history and elects the control plane", () => {
    const s = new AgentlessSim(agentless());
    s.publish("Scheduled", ["app-0", "app-1"]);
    const [first, second] = s.due() as [AgentlessRun, AgentlessRun];
    // The claim's readiness row was written, its event row lost a race: the retry finds it.
    const claimed = claimAgentlessHook(s.state, first, s.now, s.p, "claimed by A");
    if (!claimed) throw new Error("not claimed");
    const halfClaimed = { ...s.state, readiness: claimed.state.readiness };
    const retried = claimAgentlessHook(halfClaimed, first, s.now, s.p, "claimed by A");
    expect(retried?.claimed).toBe(true);
    expect(retried?.transitions.map((t) => t.reason)).toEqual([
      "the coordinator runs the drain hook of app-0 (attempt 1; no relay on this VM)",
    ]);
    // Someone else's claim is not ours.
    expect(claimAgentlessHook(halfClaimed, first, s.now, s.p, "claimed by B")).toBeNull();
    s.state = claimed.state;
    s.finish(first, "succeeded");
    s.claim(second);
    // app-1's outcome: its readiness row written, the event row decided without it (the race).
    s.now += 1000;
    const outcome = { result: "succeeded" as const, detail: "HTTP 200", startedAt: s.now - 1000 };
    const recorded = recordAgentlessHook(s.state, second, outcome, s.now, s.p);
    if (!recorded) throw new Error("not recorded");
    const halfRecorded = { ...s.state, readiness: recorded.state.readiness };
    expect(halfRecorded.events[id.toLowerCase()]?.phase).toBe("Draining");
    const retry = recordAgentlessHook(halfRecorded, second, outcome, s.now + 50, s.p);
    expect(retry?.state.events[id.toLowerCase()]?.lease).toMatchObject({ holder: CONTROL_PLANE });
    expect(retry?.transitions[0]?.reason).toMatch(/drain hook of app-1 succeeded in 1\.0 s/);
    // An outcome stored by someone else (the give-up of a claim that ran out) is not this one.
    expect(
      recordAgentlessHook(halfRecorded, second, { ...outcome, result: "failed" }, s.now, s.p),
    ).toBeNull();
  });

  it("with agentless off, a VM without a relay blocks as unmanaged and nothing is run for it", () => {
    const s = new AgentlessSim(policy());
    s.publish("Scheduled", ["app-0"]);
    expect(s.due()).toEqual([]);
    expect(s.blockers(id).map((b) => b.reason)).toEqual(["neverRegistered"]);
  });
});
