import { drained, report, scheduled } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  applyOperatorAction,
  CONTROL_PLANE,
  claimAcknowledge,
  dueAcknowledges,
  explain,
  recordAcknowledge,
} from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * The control plane as an approver (core/src/rules/controlPlane.ts): elected only where no relay can
 * approve, into the same lease, under the same rules; its call claimed once and its answer
 * recorded as ARM gave it.
 */
const id = "C7061BAC-AFDC-4513-B24B-AA5F13A16123";
const key = id.toLowerCase();
const ev = scheduled(id, ["vm0", "vm1"]);
const fallback = (over: object = {}) =>
  policy({
    controlPlaneApproval: {
      mode: "fallback",
      afterSeconds: 60,
      leaseSeconds: 90,
      maxAttempts: 2,
      ...over,
    },
  });

function hold(s: Sim, to: "on" | "off") {
  const action =
    to === "on"
      ? { kind: "hold" as const, by: "op", reason: "r", ttlSeconds: 3600 }
      : { kind: "release" as const, by: "op", reason: "r" };
  s.state = applyOperatorAction(s.state, key, action, s.now, s.p).state;
}

/** Both VMs drained, their relays then silent: Ready, and nobody reports to be elected. */
function readyWithSilentRelays(s: Sim) {
  s.send(report("vm0", 1, []));
  s.send(report("vm1", 1, []));
  s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }), 0);
  s.send(report("vm1", 2, [ev], { hooks: [drained(id)] } /* the reporter */), 0);
}

describe("control-plane approval", () => {
  it("takes the lease once the event was Ready afterSeconds with no relay holding it, and not before", () => {
    const s = new Sim(fallback());
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
    s.send(report("vm0", 2, [ev]));
    // Held by an operator while both drain: no relay is elected, and none reports after release.
    hold(s, "on");
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
    hold(s, "off");
    expect(s.phase(id)).toBe("Ready");
    s.tick(59_000);
    expect(s.event(id).lease).toBeNull();
    s.tick(2_000);
    const e = s.event(id);
    expect(e.lease).toMatchObject({ holder: CONTROL_PLANE, via: "controlPlane", attempt: 1 });
    expect(e.phase).toBe("Approving");
    expect(e.approvalRule).toBe("allDrained");
    expect(dueAcknowledges(s.state, s.now)).toEqual([
      { eventKey: key, eventId: id, attempt: 1, resources: ["vm0", "vm1"] },
    ]);
    expect(explain(s.state, key, s.now, s.p)?.waitingFor).toMatch(/control plane's acknowledge/);
  });

  it("takes over at once when a relay's lease ran out without StartRequests confirmed", () => {
    const s = new Sim(fallback());
    readyWithSilentRelays(s);
    expect(s.event(id).lease?.holder).toBe("vm1");
    s.tick(31_000); // vm1's 30 s lease runs out: its relay was cut off from IMDS
    expect(s.event(id).failedApprovers).toEqual(["vm1"]);
    expect(s.event(id).lease).toMatchObject({ via: "controlPlane" });
  });

  it("never takes the lease while a VM is not drained, even long after", () => {
    const s = new Sim(fallback({ afterSeconds: 0 }));
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    for (let i = 0; i < 10; i++) s.tick(60_000);
    expect(s.event(id).lease).toBeNull();
    expect(s.event(id).controlPlane).toBeUndefined();
  });

  it("never stands in for a dry-run relay: an event naming its VM waits for NotBefore", () => {
    const s = new Sim(fallback({ afterSeconds: 0 }));
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, [], { dryRun: true }));
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("vm1", 2, [ev], { hooks: [drained(id)], dryRun: true }));
    expect(s.phase(id)).toBe("Ready");
    for (let i = 0; i < 5; i++) s.tick(60_000);
    expect(s.event(id).lease).toBeNull();
  });

  it("is never elected when its mode is off", () => {
    const s = new Sim(fallback({ mode: "off" }));
    readyWithSilentRelays(s);
    s.tick(31_000);
    s.tick(120_000);
    expect(s.event(id).lease).toBeNull();
  });

  it("no relay is told to approve while the control plane holds the lease, and a relay named like it gets nothing", () => {
    const s = new Sim(fallback());
    readyWithSilentRelays(s);
    s.tick(31_000);
    expect(approveIds(s.send(report("vm0", 2, [ev], { hooks: [drained(id)] })))).toEqual([]);
    expect(approveIds(s.send(report(CONTROL_PLANE, 2, [ev])))).toEqual([]);
  });

  it("is claimed once per lease, and a confirmed acknowledge is recorded as approved by control-plane with the rule", () => {
    const s = new Sim(fallback());
    readyWithSilentRelays(s);
    s.tick(31_000);
    const claimed = claimAcknowledge(s.state, key, 1, s.now);
    expect(claimed).not.toBeNull();
    if (!claimed) return;
    expect(claimAcknowledge(claimed.state, key, 1, s.now)).toBeNull(); // a second instance finds it claimed
    expect(dueAcknowledges(claimed.state, s.now)).toEqual([]);
    const done = recordAcknowledge(
      claimed.state,
      key,
      1,
      { ok: true, scope: "availabilitySets/as" },
      s.now,
      s.p,
    );
    s.state = done?.state ?? s.state;
    expect(s.event(id)).toMatchObject({
      approvedBy: CONTROL_PLANE,
      approvedVia: "controlPlane",
      approvalRule: "allDrained",
    });
    expect(done?.transitions[0]?.reason).toMatch(/acknowledged by the control plane/);
    s.tick(1000);
    expect(s.phase(id)).toBe("Approving");
  });

  it("a refused acknowledge releases the lease, records ARM's code, and a permanent refusal ends its attempts", () => {
    const s = new Sim(fallback({ maxAttempts: 3 }));
    readyWithSilentRelays(s);
    s.tick(31_000);
    const claimed = claimAcknowledge(s.state, key, 1, s.now);
    const failure = { status: 403, code: "AuthorizationFailed", message: "no role", at: s.now };
    const r = recordAcknowledge(
      claimed?.state ?? s.state,
      key,
      1,
      { ok: false, failure },
      s.now,
      s.p,
    );
    s.state = r?.state ?? s.state;
    expect(s.event(id).lease).toBeNull();
    expect(s.event(id).controlPlane).toMatchObject({
      gaveUp: true,
      lastError: { code: "AuthorizationFailed" },
    });
    s.tick(120_000);
    expect(s.event(id).lease).toBeNull();
    expect(explain(s.state, key, s.now, s.p)?.waitingFor).toMatch(
      /control plane gave up \(ARM AuthorizationFailed/,
    );
    // Relays can still approve it.
    expect(approveIds(s.send(report("vm0", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
  });

  /** The control plane's first attempt, claimed and answered with `failure`. */
  function refusedOnce(s: Sim, status: number, code: string) {
    readyWithSilentRelays(s);
    s.tick(31_000);
    const claimed = claimAcknowledge(s.state, key, 1, s.now);
    const failure = { status, code, message: "m", at: s.now };
    const r = recordAcknowledge(
      claimed?.state ?? s.state,
      key,
      1,
      { ok: false, failure },
      s.now,
      s.p,
    );
    s.state = r?.state ?? s.state;
    return r?.transitions[0]?.reason ?? "";
  }

  it.each([
    [405, "NotImplemented", "notSupportedInRegion", /region/],
    [400, "BadRequest", "badRequest", /sending it again cannot help/],
  ])(
    "%i %s ends the control plane's attempts at once, saying what it means and that relays and NotBefore remain",
    (status, code, kind, meaning) => {
      const s = new Sim(fallback({ maxAttempts: 3 }));
      const reason = refusedOnce(s, status, code);
      expect(reason).toContain(kind);
      expect(reason).toMatch(meaning);
      expect(reason).toMatch(/no more attempts for this event: a relay may still approve it/);
      expect(s.event(id).controlPlane).toMatchObject({ attempts: 1, gaveUp: true });
      expect(s.event(id).lease).toBeNull();
      s.tick(120_000);
      expect(s.event(id).lease).toBeNull();
      expect(explain(s.state, key, s.now, s.p)?.waitingFor).toMatch(meaning);
      // The single lease is free: a relay that reports is elected.
      expect(approveIds(s.send(report("vm0", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
    },
  );

  it.each([
    [404, "InvalidScheduledEventId"],
    [207, "InvalidScheduledEventId"],
    [207, "NotFound"],
  ])(
    "%i %s (the RP does not know the event yet) is retried at the next election, within maxAttempts",
    (status, code) => {
      const s = new Sim(fallback({ maxAttempts: 2 }));
      const reason = refusedOnce(s, status, code);
      expect(reason).toContain("eventNotFound");
      expect(reason).toMatch(/retried when the control plane is next elected \(attempt 1 of 2\)/);
      expect(s.event(id).controlPlane).toMatchObject({ attempts: 1, gaveUp: false });
      expect(s.event(id).approvedAt).toBeNull();
      s.tick(61_000);
      expect(s.event(id).lease).toMatchObject({ holder: CONTROL_PLANE, attempt: 2 });
    },
  );

  it("a lease that runs out unclaimed or unconfirmed counts as an attempt, up to maxAttempts", () => {
    const s = new Sim(fallback({ maxAttempts: 2, leaseSeconds: 90 }));
    readyWithSilentRelays(s);
    s.tick(31_000);
    expect(s.event(id).lease?.attempt).toBe(1);
    s.tick(91_000); // the instance that held it crashed before calling ARM
    expect(s.event(id).lease?.attempt).toBe(2);
    s.tick(91_000);
    expect(s.event(id).lease).toBeNull();
    expect(s.event(id).controlPlane?.gaveUp).toBe(true);
  });

  it("an answer for an older attempt changes nothing", () => {
    const s = new Sim(fallback({ maxAttempts: 3 }));
    readyWithSilentRelays(s);
    s.tick(31_000);
    s.tick(91_000);
    expect(recordAcknowledge(s.state, key, 1, { ok: true, scope: "x" }, s.now, s.p)).toBeNull();
  });
});
