import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { drained, report, scheduled, T0 } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import { coverage, explain, isLive } from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * The idle defaults (a heartbeat every 5 min, an idle relay live for 32 min) are what keep an
 * idle VM nearly free (docs/deploy.md). These tests prove they cost no safety: approval judges a
 * relay by whether it reported since the event appeared, not by its idle timeout.
 */

const id = "0B1D1E5E-0000-4000-8000-000000000013";
const idleSeconds = DEFAULT_POLICY.idleReportSeconds;

describe("idle cadence and liveness defaults", () => {
  it("asks an idle relay for a heartbeat every 5 minutes and keeps it live for 32", () => {
    expect(DEFAULT_POLICY.idleReportSeconds).toBe(300);
    expect(DEFAULT_POLICY.idleLivenessTimeoutSeconds).toBe(1920);
    // The active side is unchanged: a relay in an event is judged on 90 s.
    expect(DEFAULT_POLICY.livenessTimeoutSeconds).toBe(90);
    const s = new Sim();
    expect(s.send(report("vm0", 1, [])).reply.nextReportInSeconds).toBe(300);
  });

  it("rewrites an idle relay's member row on one heartbeat in three, and the relay stays live between them", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    let writes = 0;
    const heartbeats = 30;
    for (let i = 0; i < heartbeats; i++) {
      // Just before the next heartbeat is due (a report round trip late), the relay is live.
      expect(isLive(s.member("vm0"), s.now + idleSeconds * 1000 + 999, s.p)).toBe(true);
      const before = s.state.members;
      const d = s.send(report("vm0", 1, []), idleSeconds * 1000 + 50);
      if (d.state.members !== before) writes++;
    }
    // Every other heartbeat changes nothing: no write (and, on an instance holding the row, no read).
    expect(writes).toBe(heartbeats / 3);
  });

  it("still blocks approval, by default, while a relay that died idle has not drained, up to NotBefore", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, [])); // vm1's relay dies after this idle heartbeat
    const ev = scheduled(id, ["vm0", "vm1"]);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }), 60_000);
    // vm0 reports every active interval until just before NotBefore (15 min after T0).
    while (s.now < T0 + 14 * 60_000) {
      const d = s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }), 5_000);
      expect(approveIds(d)).toEqual([]);
    }
    // vm1 is still live by its idle timeout, yet not for this event: it never reported it.
    expect(isLive(s.member("vm1"), s.now, s.p)).toBe(true);
    expect(explain(s.state, id.toLowerCase(), s.now, s.p)?.blockers).toMatchObject([
      { vm: "vm1", reason: "noLiveRelay" },
    ]);
  });

  it("with unmanagedVms ignore, stops waiting for a relay that died idle once livenessTimeoutSeconds pass after the event appeared, not 32 minutes", () => {
    const s = new Sim(policy({ unmanagedVms: "ignore" }));
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
    const ev = scheduled(id, ["vm0", "vm1"]);
    const first = s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }), 60_000);
    expect(approveIds(first)).toEqual([]); // vm1 may still report it within a second
    const firstSeenAt = s.now;
    let approvedAt: number | null = null;
    while (approvedAt === null && s.now < T0 + 14 * 60_000) {
      const d = s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }), 5_000);
      if (approveIds(d).length > 0) approvedAt = s.now;
    }
    expect(approvedAt).not.toBeNull();
    const waited = (approvedAt ?? 0) - firstSeenAt;
    expect(waited).toBeGreaterThan(s.p.livenessTimeoutSeconds * 1000);
    expect(waited).toBeLessThanOrEqual(s.p.livenessTimeoutSeconds * 1000 + 5_000);
  });

  it("takes a relay that comes back as live at once, for coverage and for the event it then reports", () => {
    const s = new Sim();
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
    const ev = scheduled(id, ["vm0", "vm1"], {
      NotBefore: new Date(T0 + 60 * 60_000).toUTCString(),
    });
    // vm1 silent past its idle timeout (32 min): not live.
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }), 40 * 60_000);
    expect(coverage(s.state, s.now, s.p).silent.map((m) => m.vm)).toEqual(["vm1"]);
    expect(explain(s.state, id.toLowerCase(), s.now, s.p)?.blockers[0]?.reason).toBe("noLiveRelay");
    s.send(report("vm1", 2, [ev]), 2_000);
    expect(isLive(s.member("vm1"), s.now, s.p)).toBe(true);
    expect(coverage(s.state, s.now, s.p).silent).toEqual([]);
    expect(explain(s.state, id.toLowerCase(), s.now, s.p)?.blockers[0]?.reason).toBe(
      "drainPending",
    );
    expect(approveIds(s.send(report("vm1", 2, [ev], { hooks: [drained(id)] })))).toEqual([id]);
  });

  it("holds a relay that sees an event to the active liveness timeout, so a VM gone mid-event stops counting within 90 s", () => {
    const s = new Sim();
    const ev = scheduled(id, ["vm0"]);
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    expect(isLive(s.member("vm0"), s.now + 90_000, s.p)).toBe(true);
    expect(isLive(s.member("vm0"), s.now + 91_000, s.p)).toBe(false);
  });
});
