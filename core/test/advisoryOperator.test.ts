import { drained, report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { applyOperatorAction, type OperatorAction, OperatorActionError } from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * An advisory event (a Spot rebalance recommendation) is never approved, so an operator's hold,
 * force-approve or force-gate of one could change nothing: each is refused with a code of its
 * own, naming why, and the state is left as it was. A release is taken, so an override an
 * earlier release stored on one can still be removed.
 */
const rebalanceId = "5B0A1D2C-0000-4E7F-8A9B-0C1D2E3F4A5B";
const rebalanceKey = rebalanceId.toLowerCase();
const rebalance = scheduled(rebalanceId, ["vm0"], {
  EventType: "SpotRebalanceRecommendation",
  DurationInSeconds: -1,
  Description: "",
});
const health = {
  kind: "http" as const,
  name: "health",
  url: "https://svc.example/healthz",
  expectStatus: 200,
  timeoutSeconds: 5,
};

function withRebalance(): Sim {
  const s = new Sim(policy({ gates: [health] }));
  s.send(report("vm0", 1, []));
  s.send(report("vm0", 2, [rebalance], { hooks: [drained(rebalanceId)] }));
  return s;
}

const refusal = (s: Sim, action: OperatorAction): unknown => {
  try {
    applyOperatorAction(s.state, rebalanceKey, action, s.now + 1000, s.p);
  } catch (e) {
    return e;
  }
  return undefined;
};

const base = { by: "alice", reason: "try it", ttlSeconds: 3600 };
const refused: [string, string, OperatorAction][] = [
  ["hold", "hold", { kind: "hold", ...base }],
  ["force-approve", "force-approve", { kind: "forceApprove", ...base }],
  ["force-approve with replace", "force-approve", { kind: "forceApprove", ...base, replace: true }],
  ["force-gate", "force-gate", { kind: "forceGate", gate: "health", ...base }],
];

describe("operator actions on an advisory event", () => {
  it.each(refused)(
    "refuses a %s with code advisory, naming why, and changes nothing",
    (_name, word, action) => {
      const s = withRebalance();
      const before = s.state;
      const e = refusal(s, action);
      expect(e).toBeInstanceOf(OperatorActionError);
      expect(e).toMatchObject({
        code: "advisory",
        message: `event ${rebalanceId} is a SpotRebalanceRecommendation: advisory, there is nothing to approve or hold (a ${word} would change nothing)`,
      });
      expect(s.state).toBe(before);
      expect(s.event(rebalanceId)).toMatchObject({ hold: null, force: null, phase: "Observed" });
    },
  );

  it("refuses a force-gate of a gate the policy does not have as advisory too, before naming the gate", () => {
    const s = withRebalance();
    const e = refusal(s, { kind: "forceGate", gate: "nope", ...base });
    expect(e).toMatchObject({ code: "advisory" });
  });

  it("takes a release, which removes a hold an earlier release stored on it, and still approves nothing", () => {
    const s = withRebalance();
    const hold = { by: "bob", reason: "old", at: s.now, expiresAt: s.now + 3_600_000 };
    const stale = { ...s.event(rebalanceId), hold };
    s.state = { ...s.state, events: { ...s.state.events, [rebalanceKey]: stale } };
    s.now += 1000;
    const d = applyOperatorAction(
      s.state,
      rebalanceKey,
      { kind: "release", by: "alice", reason: "clean up" },
      s.now,
      s.p,
    );
    s.state = d.state;
    expect(s.event(rebalanceId).hold).toBeNull();
    expect(d.transitions[0]?.reason).toMatch(
      /^operator: released by alice: clean up \(removes the hold by bob since /,
    );
    expect(
      approveIds(s.send(report("vm0", 2, [rebalance], { hooks: [drained(rebalanceId)] }))),
    ).toEqual([]);
  });

  it("still takes a hold of a Freeze on the same VM", () => {
    const s = withRebalance();
    const freezeId = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
    s.send(report("vm0", 3, [rebalance, scheduled(freezeId, ["vm0"])]));
    s.now += 1000;
    const d = applyOperatorAction(
      s.state,
      freezeId.toLowerCase(),
      { kind: "hold", ...base },
      s.now,
      s.p,
    );
    expect(d.state.events[freezeId.toLowerCase()]?.hold?.by).toBe("alice");
  });
});
