import { report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  applyOperatorAction,
  type OperatorAction,
  OperatorActionError,
  overrideReplaced,
} from "../src";
import { approveIds, Sim } from "./fixtures";

/**
 * A hold and a force-approve exclude each other on one event. Neither takes the other's place
 * silently: without `replace` the action is refused naming who holds what since when; with it
 * the audit transition says what it replaced.
 */

const MIN = 60_000;

/** A cluster with one Scheduled event on two VMs, neither drained. */
function withEvent(): Sim {
  const s = new Sim();
  const ev = scheduled("E-1", ["web-0", "web-1"]);
  s.send(report("web-0", 1, [ev]));
  s.send(report("web-1", 1, [ev]));
  return s;
}

const act = (s: Sim, action: OperatorAction, advanceMs = 1000) => {
  s.now += advanceMs;
  const d = applyOperatorAction(s.state, "e-1", action, s.now, s.p);
  s.state = d.state;
  return d;
};

interface Override {
  reason?: string;
  ttlSeconds?: number;
  replace?: boolean;
}
const hold = (by: string, o: Override = {}): OperatorAction => ({
  kind: "hold",
  by,
  reason: o.reason ?? "change freeze",
  ttlSeconds: o.ttlSeconds ?? 3600,
  ...(o.replace ? { replace: true } : {}),
});
const force = (by: string, o: Override = {}): OperatorAction => ({
  kind: "forceApprove",
  by,
  reason: o.reason ?? "urgent",
  ttlSeconds: o.ttlSeconds ?? 3600,
  ...(o.replace ? { replace: true } : {}),
});

describe("operator overrides: hold and force-approve", () => {
  it("refuses a force-approve over another operator's hold, naming who, why, since and until when, and changes nothing", () => {
    const s = withEvent();
    act(s, hold("alice"));
    const heldAt = new Date(s.now).toISOString();
    const until = new Date(s.now + 3_600_000).toISOString();
    const before = s.state;
    const refusal = (() => {
      try {
        act(s, force("bob"));
      } catch (e) {
        return e;
      }
    })();
    expect(refusal).toBeInstanceOf(OperatorActionError);
    expect(refusal).toMatchObject({
      code: "conflict",
      message: `event E-1 has the hold by alice since ${heldAt} (until ${until}): "change freeze"; a force-approve would remove it: release it first, or repeat with replace: true (CLI --replace)`,
    });
    expect(s.state).toBe(before);
    expect(s.event("E-1").hold?.by).toBe("alice");
  });

  it("refuses a hold over another operator's force-approve the same way", () => {
    const s = withEvent();
    act(s, force("bob"));
    expect(() => act(s, hold("alice"))).toThrow(
      /has the force-approve by bob since .*"urgent"; a hold would remove it/,
    );
    expect(s.event("E-1").force?.by).toBe("bob");
    expect(s.event("E-1").hold).toBeNull();
  });

  it("with replace, a force-approve takes the hold's place and its audit transition names the hold it replaced", () => {
    const s = withEvent();
    act(s, hold("alice"));
    const d = act(s, force("bob", { replace: true }));
    expect(s.event("E-1").hold).toBeNull();
    expect(s.event("E-1").force).toMatchObject({ by: "bob", reason: "urgent" });
    const audit = d.transitions.find((t) => t.reason.startsWith("operator:"));
    expect(audit?.reason).toMatch(
      /^operator: force-approve by bob until .*: urgent \(replaces the hold by alice since .* \(until .*\): "change freeze"\)$/,
    );
    // The force is in effect: the next report of a VM seeing the event approves it.
    expect(approveIds(s.send(report("web-0", 1, [scheduled("E-1", ["web-0", "web-1"])])))).toEqual([
      "E-1",
    ]);
  });

  it("with replace, a hold takes a force-approve's place and stops the approval it allowed", () => {
    const s = withEvent();
    act(s, force("bob"));
    const d = act(s, hold("alice", { replace: true }));
    expect(s.event("E-1").force).toBeNull();
    expect(s.event("E-1").hold?.by).toBe("alice");
    expect(d.transitions[0]?.reason).toContain("(replaces the force-approve by bob since");
    expect(approveIds(s.send(report("web-0", 1, [scheduled("E-1", ["web-0", "web-1"])])))).toEqual(
      [],
    );
  });

  it("renews an override of the same kind without replace, and says whose it replaced", () => {
    const s = withEvent();
    act(s, hold("alice"));
    const d = act(s, hold("carol", { reason: "still frozen" }));
    expect(s.event("E-1").hold).toMatchObject({ by: "carol", reason: "still frozen" });
    expect(d.transitions[0]?.reason).toContain("(replaces the hold by alice since");
  });

  it("takes no expired override for anyone's: no refusal and nothing named as replaced", () => {
    const s = withEvent();
    act(s, hold("alice", { ttlSeconds: 60 }));
    const d = act(s, force("bob"), 2 * MIN);
    expect(s.event("E-1").force?.by).toBe("bob");
    expect(d.transitions.find((t) => t.reason.startsWith("operator:"))?.reason).not.toContain(
      "replaces",
    );
  });

  it("a release removes either, and its audit names what it removed", () => {
    const s = withEvent();
    act(s, hold("alice"));
    const d = act(s, { kind: "release", by: "bob", reason: "freeze over" });
    expect(s.event("E-1").hold).toBeNull();
    expect(d.transitions[0]?.reason).toMatch(
      /^operator: released by bob: freeze over \(removes the hold by alice since /,
    );
  });

  it("overrideReplaced names the override in force an action would take away, and nothing for force-gate", () => {
    const s = withEvent();
    act(s, hold("alice"));
    const e = s.event("E-1");
    expect(overrideReplaced(e, force("bob"), s.now)).toMatchObject({ kind: "hold", by: "alice" });
    expect(overrideReplaced(e, { kind: "release", by: "b", reason: "r" }, s.now)?.kind).toBe(
      "hold",
    );
    expect(
      overrideReplaced(
        e,
        { kind: "forceGate", gate: "g", by: "b", reason: "r", ttlSeconds: 60 },
        s.now,
      ),
    ).toBeNull();
    expect(overrideReplaced(e, force("bob"), s.now + 3_600_000)).toBeNull();
  });
});
