import { drained, report, scheduled, started } from "@quiesce/testkit/documents";
import { describe, expect, it } from "vitest";
import {
  applyOperatorAction,
  decidePatchRunCancel,
  explain,
  guestPatchingVerdict,
  inMaintenance,
  type PatchRunView,
} from "../src";
import { approveIds, policy, Sim } from "./fixtures";

/**
 * Update Manager's patch runs beside scheduled events (core/src/rules/guestPatching.ts): the
 * guest-patching gate holds approvals while a run of a named configuration is announced or
 * running, and a pre-maintenance event meeting an event in maintenance is cancelled only before
 * its cut-off, only when the policy says `cancel`.
 */
const id = "E7061BAC-AFDC-4513-B24B-AA5F13A16123";
const key = id.toLowerCase();
const ev = scheduled(id, ["vm0", "vm1"]);
const CONFIG =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Maintenance/maintenanceConfigurations/patch-web";
const patching = (over: object = {}) => ({
  maintenanceConfigurations: [CONFIG],
  whileEventActive: "cancel" as const,
  holdApprovalsDuringPatching: true,
  ...over,
});

function runAt(now: number, over: Partial<PatchRunView> = {}): PatchRunView {
  return {
    correlationId: `${CONFIG}/providers/microsoft.maintenance/applyupdates/20261127150000`,
    maintenanceConfigurationId: CONFIG.toLowerCase(),
    startAt: now + 30 * 60_000,
    endAt: now + 4 * 3600_000,
    cancelCutoffAt: now + 29 * 60_000,
    postAt: null,
    cancelledAt: null,
    ...over,
  };
}

function drainBoth(s: Sim, inputs?: { gates: { name: string; pass: boolean; detail: string }[] }) {
  s.send(report("vm0", 1, []));
  s.send(report("vm1", 1, []));
  s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
  return s.sendWith(report("vm1", 2, [ev], { hooks: [drained(id)] }), inputs);
}

describe("the guest-patching gate", () => {
  it("holds a drained event Ready while a run is announced, named in waiting for, and approves once it is over", () => {
    const s = new Sim(policy({ guestPatching: patching() }));
    const run = runAt(s.now);
    const holding = guestPatchingVerdict(s.p.guestPatching, [run], s.now);
    expect(holding).toMatchObject({ name: "guestPatching", pass: false });
    expect(approveIds(drainBoth(s, { gates: [holding as NonNullable<typeof holding>] }))).toEqual(
      [],
    );
    expect(explain(s.state, key, s.now, s.p)?.waitingFor).toMatch(
      /guestPatching \(patch run 20261127150000 of patch-web announced for/,
    );
    const over = guestPatchingVerdict(s.p.guestPatching, [{ ...run, postAt: s.now }], s.now);
    expect(over).toMatchObject({ pass: true });
    const d = s.sendWith(report("vm1", 2, [ev], { hooks: [drained(id)] }), {
      gates: [over as NonNullable<typeof over>],
    });
    expect(approveIds(d)).toEqual([id]);
  });

  it("is unknown (so never approves) in a round that did not read the runs, and absent when the policy has none", () => {
    const s = new Sim(policy({ guestPatching: patching() }));
    expect(approveIds(drainBoth(s))).toEqual([]);
    expect(
      guestPatchingVerdict(patching({ holdApprovalsDuringPatching: false }), [runAt(0)], 0),
    ).toBeNull();
  });

  it("ignores runs of configurations the cluster does not name, and cancelled ones", () => {
    const g = patching();
    const other = runAt(0, { maintenanceConfigurationId: `${CONFIG.toLowerCase()}-other` });
    expect(guestPatchingVerdict(g, [other], 0)).toMatchObject({ pass: true });
    expect(guestPatchingVerdict(g, [runAt(0, { cancelledAt: 0 })], 0)).toMatchObject({
      pass: true,
    });
  });

  it("can be forced past by an operator under its name", () => {
    const s = new Sim(policy({ guestPatching: patching() }));
    const holding = guestPatchingVerdict(s.p.guestPatching, [runAt(s.now)], s.now);
    drainBoth(s, { gates: [holding as NonNullable<typeof holding>] });
    const forced = applyOperatorAction(
      s.state,
      key,
      {
        kind: "forceGate",
        gate: "guestPatching",
        by: "ops",
        reason: "patching is harmless here",
        ttlSeconds: 600,
      },
      s.now,
      s.p,
    );
    expect(forced.state.events[key]?.gateOverrides?.map((o) => o.gate)).toEqual(["guestPatching"]);
  });
});

describe("cancelling a patch run", () => {
  function inMaintenanceSim() {
    const s = new Sim(policy({ guestPatching: patching({ holdApprovalsDuringPatching: false }) }));
    drainBoth(s);
    s.send(report("vm0", 3, [started(ev)]));
    expect(inMaintenance(s.event(id))).toBe(true);
    return s;
  }

  it("is wanted while an event of the cluster is in maintenance and the cut-off is ahead", () => {
    const s = inMaintenanceSim();
    const d = decidePatchRunCancel(s.p.guestPatching, s.state, runAt(s.now), s.now);
    expect(d).toMatchObject({ cancel: true });
    expect(d.cancel && d.events.map((e) => e.eventId)).toEqual([id]);
  });

  it("is not wanted with `allow`, after the cut-off, for a run already over, or with no event in maintenance", () => {
    const s = inMaintenanceSim();
    const allow = patching({ whileEventActive: "allow" });
    expect(decidePatchRunCancel(allow, s.state, runAt(s.now), s.now)).toMatchObject({
      cancel: false,
    });
    const late = decidePatchRunCancel(
      s.p.guestPatching,
      s.state,
      runAt(s.now, { cancelCutoffAt: s.now - 1 }),
      s.now,
    );
    expect(late).toMatchObject({
      cancel: false,
      reason: expect.stringMatching(/^too late to cancel/),
    });
    expect(
      decidePatchRunCancel(s.p.guestPatching, s.state, runAt(s.now, { postAt: s.now }), s.now),
    ).toMatchObject({ cancel: false });
    const idle = new Sim(s.p);
    expect(
      decidePatchRunCancel(idle.p.guestPatching, idle.state, runAt(idle.now), idle.now),
    ).toMatchObject({
      cancel: false,
      reason: "no event of the cluster in maintenance",
    });
  });

  it("counts an event as in maintenance from approval until it ended and recovered, not while it only drains", () => {
    const s = new Sim(policy());
    s.send(report("vm0", 1, []));
    s.send(report("vm1", 1, []));
    s.send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
    expect(inMaintenance(s.event(id))).toBe(false);
    s.send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
    s.send(report("vm0", 3, [started(ev)], { hooks: [drained(id)] }));
    expect(inMaintenance(s.event(id))).toBe(true);
  });
});
