import { type HookService, startHookService } from "@quiesce/demo";
import type { FabricSimulator } from "@quiesce/fabric-simulator";
import {
  FAST_POLICY,
  type HookedCluster,
  simEvent,
  startHookedCluster,
  waitForPhase,
} from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Events Azure publishes off the VM, end to end: the fabric's Event Grid publisher delivering to
 * the coordinator's webhook (handshake, duplicates, reordering, drops), the Resource Graph
 * backstop on its loopback ARM, and the coordinator draining VMs without a relay through their
 * HTTP hooks and load balancer, then approving through ARM. Relays where a VM has one.
 */
const optIn = { eventGridAndResourceGraph: true };
const topology = {
  groups: [
    // No relay at all: an appliance pair.
    {
      kind: "availabilitySet" as const,
      name: "avset-app",
      vms: ["app-0", "app-1"],
      relays: false,
      scheduledEventsPolicy: optIn,
    },
    // One VM with a relay, one without.
    {
      kind: "availabilitySet" as const,
      name: "avset-mix",
      vms: ["mix-0", { name: "mix-1", relay: false }],
      scheduledEventsPolicy: optIn,
    },
    {
      kind: "availabilitySet" as const,
      name: "avset-web",
      vms: ["web-0", "web-1"],
      scheduledEventsPolicy: { ...optIn, userInitiatedReboot: { automaticallyApprove: true } },
    },
    {
      kind: "scaleSetPlacementGroup" as const,
      name: "pg-api",
      scaleSetName: "vmss-api",
      vms: 3,
      scheduledEventsPolicy: optIn,
    },
    // Claimed by no cluster.
    {
      kind: "standalone" as const,
      vms: [{ name: "lonely", relay: false }],
      scheduledEventsPolicy: optIn,
    },
  ],
  loadBalancers: [{ name: "lb-app", pools: [{ name: "app", groups: ["avset-app"] }] }],
};

const DRAIN_MS = 1_000;

describe("events published off the VM, and VMs without a relay", () => {
  let e: HookedCluster;
  let hooks: HookService;
  const f = () => e.c.fabric;
  beforeAll(async () => {
    hooks = await startHookService(DRAIN_MS);
    e = await startHookedCluster({
      cluster: "e2e",
      topology,
      timeScale: 1,
      controlPlane: true,
      controlPlaneEvents: { resourceGraphIntervalSeconds: 2 },
      sweepIntervalMs: 500,
      relaySettings: { QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: 0 },
      relayOptions: { reportRetry: { baseMs: 200, maxMs: 1_000 } },
      policy: (fabric: FabricSimulator) => ({
        default: { ...FAST_POLICY, maxEventsInFlight: 4 },
        clusters: {
          e2e: {
            loadBalancerDrain: { enabled: true, settleSeconds: 1 },
            agentless: {
              enabled: true,
              drain: { url: `${hooks.url}/drain/{vmName}`, timeoutSeconds: 10 },
              recover: { url: `${hooks.url}/recover/{vmName}`, timeoutSeconds: 10 },
            },
            azureResources: [
              `${fabric.arm.resourceGroupId()}/providers/Microsoft.Compute/availabilitySets/avset-app`,
            ],
          },
        },
      }),
    });
  });
  afterAll(async () => {
    await e?.stop();
    await hooks?.stop();
  });

  it("drains an agentless group through its HTTP hooks and load balancer, approves it through ARM before NotBefore, and recovers it after", async () => {
    const ev = f().schedule({
      eventType: "Freeze",
      group: "avset-app",
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const done = await waitForPhase(e.c, ev.eventId, ["Completed"], 30_000, 100);
    const sim = simEvent(f(), ev.eventId);
    expect(sim.approvedBy).toBe("control-plane");
    expect(sim.startCause).toBe("approval");
    expect(sim.approvedAt?.simMs).toBeLessThan(sim.notBeforeMs ?? 0);
    // Every drain finished before the approval, the recovers only after Azure said Completed.
    const calls = hooks.calls();
    for (const vm of ["app-0", "app-1"]) {
      const drain = calls.find((c) => c.hook === "drain" && c.vm === vm);
      const recover = calls.find((c) => c.hook === "recover" && c.vm === vm);
      expect(drain?.finishedAt).toBeLessThan(sim.approvedAt?.realMs ?? 0);
      expect(drain?.body).toMatchObject({
        hook: "drain",
        event: { EventId: ev.eventId },
        vm: { name: vm },
      });
      expect(recover?.startedAt).toBeGreaterThan(sim.removedAt?.realMs ?? Number.POSITIVE_INFINITY);
    }
    expect(calls.filter((c) => c.hook === "drain")).toHaveLength(2); // each run once
    expect(done.approval).toMatchObject({ via: "controlPlane", rule: "allDrained" });
    // Taken out of the load balancer before the approval, put back after.
    const puts = f()
      .arm.requests()
      .filter(
        (r) => r.method === "PUT" && /backendAddressPools\/app$/i.test(r.path) && r.status === 200,
      );
    expect(puts.length).toBeGreaterThanOrEqual(2);
    expect(puts[0]?.at.realMs).toBeLessThan(sim.approvedAt?.realMs ?? 0);
    const backends = f().loadBalancers()[0]?.pools[0]?.backends ?? [];
    expect(backends.map((b) => [b.vm, b.adminState])).toEqual([
      ["app-0", "None"],
      ["app-1", "None"],
    ]);
  });

  it("in a mixed group, approves only once the relay's VM and the agentless VM both drained, by the relay", async () => {
    e.markers.hold("drain", "mix-0");
    const ev = f().schedule({
      eventType: "Freeze",
      group: "avset-mix",
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await waitFor(
      "the coordinator's drain of mix-1",
      () => hooks.calls().some((c) => c.vm === "mix-1" && c.finishedAt),
      20_000,
      100,
    );
    // The hook has answered; the coordinator records its outcome just after: wait for that write.
    const held = await waitFor(
      "mix-1's drain recorded",
      async () => {
        const x = await e.c.status.event(ev.eventId, "e2e");
        return x.blockers.some((b) => b.vm === "mix-1") ? undefined : x;
      },
      10_000,
      100,
    );
    expect(held.phase).toBe("Draining");
    expect(held.blockers.map((b) => b.vm)).toEqual(["mix-0"]);
    e.markers.release("drain", "mix-0");
    await waitForPhase(e.c, ev.eventId, ["Completed"], 30_000, 100);
    expect(simEvent(f(), ev.eventId).approvedBy).toBe("mix-0");
  });

  it("shows and alerts on an event of a VM no cluster claims, in the unclaimed cluster", async () => {
    const ev = f().schedule({ eventType: "Reboot", group: "lonely", noticeSeconds: 600 });
    const shown = await waitFor(
      "the unclaimed event",
      () => e.c.status.event(ev.eventId, "unclaimed").catch(() => null),
      20_000,
      100,
    );
    expect(shown).toMatchObject({ firstSeenBy: "Event Grid", resources: ["lonely"] });
    expect(shown.blockers.map((b) => b.reason)).toEqual(["neverRegistered"]);
    f().cancel(ev.eventId);
    await waitFor(
      "the unclaimed event Cancelled",
      async () => (await e.c.status.event(ev.eventId, "unclaimed")).phase === "Cancelled",
      20_000,
      100,
    );
  });

  it("converges to the relays' view whatever Event Grid duplicates, reorders or drops, Resource Graph finding what was dropped", async () => {
    const sub = e.c.eventGrid;
    if (!sub) throw new Error("no Event Grid subscription");
    sub.injectFaults({ duplicate: 3, reorder: 1 }); // Scheduled held back until after Started
    const web = f().schedule({
      eventType: "Freeze",
      group: "avset-web",
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const seen = await waitForPhase(e.c, web.eventId, ["Completed"], 30_000, 100);
    expect(seen.resources).toEqual(["web-0", "web-1"]);
    await sub.settled();
    expect(sub.view().counters.duplicated).toBeGreaterThan(0);
    await waitFor(
      "Completed published",
      async () => (await e.c.status.event(web.eventId, "e2e")).published?.status === "Completed",
      10_000,
      100,
    );

    // Every delivery of the next event is lost: the backstop reads it from Resource Graph.
    sub.injectFaults({ drop: 50 });
    const app = f().schedule({
      eventType: "Freeze",
      group: "avset-app",
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const found = await waitForPhase(e.c, app.eventId, ["Completed"], 40_000, 100);
    expect(found.firstSeenBy).toBe("Resource Graph");
    expect(simEvent(f(), app.eventId).approvedBy).toBe("control-plane");
    sub.injectFaults({ drop: 0 });
  });

  it("labels a user's reboot that Azure approved itself as user-initiated, not unannounced", async () => {
    const ev = f().schedule({
      eventType: "Reboot",
      group: "avset-web",
      eventSource: "User",
      startedSeconds: 2,
    });
    expect(simEvent(f(), ev.eventId).startCause).toBe("autoApproved");
    const d = await waitForPhase(
      e.c,
      ev.eventId,
      ["Unplanned", "Recovering", "Completed"],
      20_000,
      100,
    );
    expect(d.startedFirst).toBe("userInitiated");
  });

  it("approves each deleted scale-set VM's own Terminate, never a neighbour's", async () => {
    const [t0, t1] = f().deleteInstances("vmss-api", ["vmss-api_0", "vmss-api_1"], {
      noticeSeconds: 300,
    });
    if (!t0 || !t1) throw new Error("no Terminate events");
    await waitFor(
      "both Terminates started",
      () => [t0, t1].every((t) => simEvent(f(), t.eventId).phase !== "Scheduled"),
      30_000,
      100,
    );
    for (const [t, vm] of [
      [t0, "vmss-api_0"],
      [t1, "vmss-api_1"],
    ] as const) {
      const sim = simEvent(f(), t.eventId);
      expect(sim.startCause).toBe("approval");
      expect(sim.approvals.map((a) => a.vm)).toEqual([vm]);
    }
  });
});
