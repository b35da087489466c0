import { drained, report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { applyOperatorAction, explain, liveRelaysVerdicts } from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/** Safety gates (core/src/rules/gates.ts): verdicts from the shell, combined by the core. */
const id = "D7061BAC-AFDC-4513-B24B-AA5F13A16123";
const key = id.toLowerCase();
const ev = scheduled(id, ["vm0", "vm1"]);
const health = {
  kind: "http" as const,
  name: "health",
  url: "https://svc.example/healthz",
  expectStatus: 200,
  timeoutSeconds: 5,
};
const gated = (over: object = {}) => policy({ gates: [health], ...over });
const pass = { gates: [{ name: "health", pass: true, detail: "answered 200" }] };
const fail = { gates: [{ name: "health", pass: false, detail: "answered 503, expected 200" }] };

function drainBoth(s: Sim, inputs?: typeof pass) {
  s.send(report("vm0", 1, []));
  s.send(report("vm1", 1, []));
  s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
  return s.sendWith(report("vm1", 2, [ev], { hooks: [drained(id)] }), inputs);
}

describe("safety gates", () => {
  it("a round that did not evaluate the gates never elects an approver", () => {
    const s = new Sim(gated());
    expect(approveIds(drainBoth(s))).toEqual([]);
    expect(s.phase(id)).toBe("Ready");
  });

  it("a failing gate keeps the event Ready, named in waiting for, until it passes", () => {
    const s = new Sim(gated());
    expect(approveIds(drainBoth(s, fail))).toEqual([]);
    expect(s.phase(id)).toBe("Ready");
    const why = explain(s.state, key, s.now, s.p);
    expect(why?.gates).toEqual([{ name: "health", detail: "answered 503, expected 200" }]);
    expect(why?.waitingFor).toMatch(/^gate\(s\) to pass: health \(answered 503, expected 200\)/);
    const d = s.sendWith(report("vm1", 2, [ev], { hooks: [drained(id)] }), pass);
    expect(approveIds(d)).toEqual([id]);
    expect(s.event(id).gates).toBeNull();
  });

  it("an operator's force past a gate lets that gate, and only that gate, be skipped, and is audited", () => {
    const s = new Sim(gated({ gates: [health, { ...health, name: "other" }] }));
    drainBoth(s, fail);
    const forced = applyOperatorAction(
      s.state,
      key,
      { kind: "forceGate", gate: "health", by: "alice", reason: "probe is wrong", ttlSeconds: 600 },
      s.now,
      s.p,
    );
    expect(forced.transitions[0]?.reason).toMatch(/^operator: force past gate health by alice/);
    s.state = forced.state;
    const both = { gates: [...fail.gates, { name: "other", pass: false, detail: "down" }] };
    expect(approveIds(s.sendWith(report("vm1", 2, [ev], { hooks: [drained(id)] }), both))).toEqual(
      [],
    );
    const onlyHealthFails = { gates: [...fail.gates, { name: "other", pass: true, detail: "ok" }] };
    expect(
      approveIds(s.sendWith(report("vm1", 2, [ev], { hooks: [drained(id)] }), onlyHealthFails)),
    ).toEqual([id]);
  });

  it("forcing a gate the policy does not have is refused", () => {
    const s = new Sim(gated());
    drainBoth(s, fail);
    expect(() =>
      applyOperatorAction(
        s.state,
        key,
        { kind: "forceGate", gate: "nope", by: "a", reason: "r", ttlSeconds: 60 },
        s.now,
        s.p,
      ),
    ).toThrow(/no gate named nope/);
  });

  it("counts live relays that are not draining, per cluster and per group", () => {
    const s = new Sim();
    for (const vm of ["vm0", "vm1", "vm2", "vm3"]) s.send(report(vm, 1, []), 0);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }), 0);
    const cluster = liveRelaysVerdicts(s.state, s.now, s.p, {
      kind: "liveRelays",
      name: "quorum",
      min: 3,
      per: "cluster",
    });
    expect(cluster).toEqual([
      {
        name: "quorum",
        pass: true,
        detail: "3 of 4 relays live and not draining; at least 3 must remain",
      },
    ]);
    const strict = liveRelaysVerdicts(s.state, s.now, s.p, {
      kind: "liveRelays",
      name: "quorum",
      min: 4,
      per: "cluster",
    });
    expect(strict[0]?.pass).toBe(false);
    s.tick(3_600_000); // every relay silent for an hour: none is live
    expect(
      liveRelaysVerdicts(s.state, s.now, s.p, {
        kind: "liveRelays",
        name: "q",
        min: 1,
        per: "group",
      }).every((v) => !v.pass),
    ).toBe(true);
  });

  it("gates hold control-plane approval too", () => {
    const s = new Sim(
      gated({
        controlPlaneApproval: {
          mode: "fallback",
          afterSeconds: 0,
          leaseSeconds: 90,
          maxAttempts: 3,
        },
      }),
    );
    drainBoth(s, fail);
    s.tick(31_000, fail);
    s.tick(10_000, fail);
    expect(s.event(id).lease?.via).toBeUndefined();
    s.tick(10_000, pass);
    expect(s.event(id).lease?.via).toBe("controlPlane");
  });
});
