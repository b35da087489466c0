import {
  type E2eCluster,
  simEvent,
  startE2eCluster,
  waitForLiveRelays,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A cluster under `attestation: require` (its policy's, the app default being prefer), end to
 * end: real relay processes fetch attested documents from the fabric's IMDS, the coordinator
 * verifies them against the fabric's test CA (its AIA over loopback) and maps each vmId to its VM
 * with one read of the fabric's ARM. Readiness counts only from relays so bound.
 */

const topology = {
  groups: [
    {
      kind: "scaleSetPlacementGroup" as const,
      name: "vmss-api-pg0",
      scaleSetName: "vmss-api",
      vms: 3,
    },
  ],
};

describe("attestation required, end to end", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(topology, { attestation: "require" }, { controlPlane: true });
  });
  afterAll(async () => {
    await e?.stop();
  });

  it("binds every relay to its VM by the attested document, and runs an event to completion on bound relays alone", async () => {
    const { c } = e;
    const page = await c.status.cluster(c.cluster);
    expect(page.members).toHaveLength(3);
    for (const m of page.members) {
      const vm = c.fabric.state().vms[m.vm];
      expect(m.attestation).toMatchObject({ bound: true, binding: { vmId: vm?.vmId } });
    }
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["vmss-api_0", "vmss-api_1"],
      noticeSeconds: 120,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await waitForPhase(c, ev.eventId, ["Completed"], 60_000);
    const sim = simEvent(c.fabric, ev.eventId);
    expect(sim.startCause).toBe("approval");
    expect(["vmss-api_0", "vmss-api_1", "vmss-api_2"]).toContain(sim.approvedBy);
    const reads = c.fabric.arm
      .requests()
      .filter(
        (r) =>
          r.method === "GET" &&
          /\/virtualMachineScaleSets\/vmss-api\/virtualMachines\/\d+$/i.test(r.path),
      );
    // One ARM read per VM: later reports ride on the binding.
    expect(new Set(reads.map((r) => r.path)).size).toBe(3);
    expect(reads).toHaveLength(3);
  });

  it("makes a restarted relay prove itself again before its reports count", async () => {
    const { c } = e;
    const before = (await c.status.cluster(c.cluster)).members.find((m) => m.vm === "vmss-api_2");
    await c.stopRelay("vmss-api_2");
    await c.startRelay("vmss-api_2");
    await waitFor(
      "vmss-api_2 bound to its new relay process",
      async () => {
        const m = (await c.status.cluster(c.cluster)).members.find((x) => x.vm === "vmss-api_2");
        return (
          m?.attestation?.bound === true &&
          m.attestation.binding?.bootId !== before?.attestation?.binding?.bootId
        );
      },
      30_000,
    );
    await waitForLiveRelays(c, 3);
  });
});
