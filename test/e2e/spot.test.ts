import { REBALANCE_API_VERSION as QUIESCE_IMDS_API_VERSION } from "@quiesce/protocol/imds";
import {
  type E2eCluster,
  simEvent,
  startE2eCluster,
  startRequestsFor,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import {
  expectDrainedBeforeApproval,
  expectOneApprover,
  expectPlannedLifecycle,
  expectRecoveredAfterEnd,
} from "@quiesce/testkit/lifecycle";
import { hookMarkers, lastEnd, type Markers } from "@quiesce/testkit/markers";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Spot VMs end to end with real relays, the local coordinator on Azurite and the fabric simulator
 * at time scale 1. Each test has a VM of its own, so the two run at once: each waits mostly on
 * Azure's timeline (a 20 s recommendation, a 30 s Preempt notice).
 */

// Standalone VMs, each its own group. Preempt deletes spot-0, so no other test may use it.
const topology = { groups: [{ kind: "standalone" as const, vms: ["spot-0", "spot-1"] }] };
// spot-1's recommendation stands 20 s: long enough for a Freeze to be approved and end meanwhile.
const SPOT_1 = { resources: ["spot-1"], durationInSeconds: 20, startedSeconds: 1 };

describe.concurrent("Spot VMs end to end", () => {
  let e: E2eCluster;
  let spot: Markers; // spot-1's hooks' marker files, as VM "advised-spot-1" when told advisory
  beforeAll(async () => {
    spot = hookMarkers();
    const hook = `[ "$QUIESCE_EVENT_ADVISORY" = true ] && QUIESCE_VM_NAME=advised-spot-1; ${spot.command}`;
    const spot1 = { QUIESCE_DRAIN_COMMAND: hook, QUIESCE_RECOVER_COMMAND: hook };
    e = await startE2eCluster(
      topology,
      { maxEventsInFlight: 4 },
      { relaySettingsFor: (vm) => (vm === "spot-1" ? { ...spot1, QUIESCE_IMDS_API_VERSION } : {}) },
    );
  });
  afterAll(async () => {
    await e?.stop();
    spot?.remove();
  });

  it("drains spot-1 as advisory for a Spot rebalance recommendation, never approves it and ends it Completed when it lapses; a Freeze of spot-1 meanwhile is approved once drained", async () => {
    const { c } = e;
    const rec = c.fabric.schedule({ ...SPOT_1, eventType: "SpotRebalanceRecommendation" });
    const ran = (h: "drain" | "recover") => lastEnd(spot.runs(h, "advised-spot-1", rec.eventId));
    await waitFor("spot-1 drained, told it is advisory", () => ran("drain"), 15_000);
    const seen = await waitForPhase(c, rec.eventId, ["Observed"], 15_000);
    expect(seen).toMatchObject({ advisory: true, approval: { approvedAt: null, lease: null } });
    const freeze = c.fabric.schedule({ ...SPOT_1, eventType: "Freeze", durationInSeconds: 1 });
    const frozen = await waitForPhase(c, freeze.eventId, ["Completed"], 30_000);
    expect(frozen.approval.rule).toBe("allDrained");
    expectPlannedLifecycle(c.fabric, spot, freeze.eventId); // its hooks told it is not advisory
    const done = await waitForPhase(c, rec.eventId, ["Completed"], 30_000);
    expect(done).toMatchObject({ advisory: true, approval: { approvedAt: null, rule: null } });
    expect(startRequestsFor(c.fabric, rec.eventId)).toEqual([]);
    const lapsedAt = simEvent(c.fabric, rec.eventId).removedAt?.realMs as number;
    expect(startRequestsFor(c.fabric, freeze.eventId)[0]?.at.realMs).toBeLessThan(lapsedAt);
    await waitFor("spot-1 recovered, told it is advisory", () => ran("recover"), 15_000);
    expectRecoveredAfterEnd(c.fabric, spot, rec.eventId, ["advised-spot-1"]);
    expect(spot.vmsThatRan("drain", rec.eventId)).toEqual(["advised-spot-1"]);
  });

  it("drains a Spot VM on its 30 s Preempt notice and approves at once; the deleted VM owes no recover", async () => {
    const { c, markers } = e;
    const ev = c.fabric.schedule({
      eventType: "Preempt",
      resources: ["spot-0"],
      startedSeconds: 1,
    });
    const notBefore = simEvent(c.fabric, ev.eventId).notBeforeMs as number;
    const notice = notBefore - simEvent(c.fabric, ev.eventId).scheduledAt.simMs;
    expect(Math.abs(notice - 30_000), "about 30 s of notice").toBeLessThan(1_000); // NotBefore has whole seconds
    await waitFor("Azure ends the Preempt", () => simEvent(c.fabric, ev.eventId).removedAt, 30_000);
    await c.stopRelay("spot-0"); // Azure deleted the VM, and its relay with it
    // Nobody is left to report the event gone: the sweep ends it once spot-0 is no longer live.
    const done = await waitForPhase(c, ev.eventId, ["Completed"], 45_000);
    expect(done.approval.rule).toBe("allDrained");
    expectOneApprover(c.fabric, ev.eventId);
    expectDrainedBeforeApproval(c.fabric, markers, ev.eventId);
    const started = simEvent(c.fabric, ev.eventId).startedAt?.simMs as number;
    expect(started, "started well before NotBefore").toBeLessThan(notBefore - 20_000);
    expect(markers.vmsThatRan("recover", ev.eventId)).toEqual([]);
  });
});
