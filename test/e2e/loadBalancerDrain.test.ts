import type { FabricSimulator } from "@quiesce/fabric-simulator";
import { type E2eCluster, simEvent, startE2eCluster, waitForPhase } from "@quiesce/testkit/cluster";
import { waitFor } from "@quiesce/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Load-balancer drain and safety gates end to end: real relays, the local coordinator, and the
 * fabric simulator's load balancer (admin state per backend, simulated traffic), alert rule and
 * health endpoint, all reached through its loopback ARM or over HTTP.
 */
const topology = {
  groups: [
    {
      kind: "availabilitySet" as const,
      name: "avset-web",
      vms: ["web-0", "web-1", "web-2", "web-3"],
    },
  ],
  loadBalancers: [
    {
      name: "lb-web",
      pools: [{ name: "web", groups: ["avset-web"] }],
      requestsPerSecond: 40,
      probeSeconds: 15,
    },
  ],
  alertRules: ["high-error-rate"],
};
const policy = (f: FabricSimulator) => ({
  maxEventsInFlight: 4,
  loadBalancerDrain: { enabled: true, settleSeconds: 2 },
  gates: [
    {
      kind: "http",
      name: "app-health",
      url: `${f.url}/health/app`,
      expectStatus: 200,
      timeoutSeconds: 2,
    },
    {
      kind: "alertRule",
      name: "errors",
      alertRuleId: `${f.arm.resourceGroupId()}/providers/Microsoft.Insights/metricAlerts/high-error-rate`,
    },
    { kind: "liveRelays", name: "quorum", min: 1 },
  ],
});

const backend = (f: FabricSimulator, vm: string) => {
  const b = f.loadBalancers()[0]?.pools[0]?.backends.find((x) => x.vm === vm);
  if (!b) throw new Error(`no backend ${vm}`);
  return b;
};
/** When the fabric's ARM last answered a PUT of the pool with 200 (real ms). */
const poolWrites = (f: FabricSimulator) =>
  f.arm
    .requests()
    .filter(
      (r) => r.method === "PUT" && /backendAddressPools\/web$/i.test(r.path) && r.status === 200,
    );

describe("load-balancer drain and safety gates end to end", () => {
  let e: E2eCluster;
  beforeAll(async () => {
    e = await startE2eCluster(topology, policy, { controlPlane: true });
  });
  afterAll(async () => {
    await e?.stop();
  });

  it("takes a VM out of its load balancer before it counts as drained, restores it only after recover, and never touches one an operator took down", async () => {
    const { c, markers } = e;
    c.fabric.setAdminState("lb-web", "web", "web-2", "Down"); // the operator's, before the event
    markers.hold("recover", "web-0");
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-0", "web-2"],
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await waitFor(
      "the fabric to start the event",
      () => simEvent(c.fabric, ev.eventId).startedAt !== undefined,
      30_000,
    );
    const approvedAt = simEvent(c.fabric, ev.eventId).approvedAt?.realMs ?? 0;
    const firstDown = poolWrites(c.fabric)[0]?.at.realMs ?? Number.POSITIVE_INFINITY;
    expect(firstDown + 2_000).toBeLessThanOrEqual(approvedAt); // Down, then the settle time, then approval
    expect(backend(c.fabric, "web-0").adminState).toBe("Down");
    expect(backend(c.fabric, "web-0").dropped).toBe(0); // nothing reached it during the maintenance
    // The event ends; web-0's recover hook is still running: it stays out.
    await waitForPhase(c, ev.eventId, ["Recovering"], 30_000);
    expect(backend(c.fabric, "web-0").adminState).toBe("Down");
    markers.release("recover", "web-0");
    await waitForPhase(c, ev.eventId, ["Completed"], 30_000);
    expect(backend(c.fabric, "web-0").adminState).toBe("None");
    expect(backend(c.fabric, "web-2").adminState).toBe("Down");
    const d = await c.status.event(ev.eventId, c.cluster);
    const web2 = d.readiness.find((r) => r.vm === "web-2")?.loadBalancer;
    expect(web2?.pools.map((p) => p.previous)).toEqual(["Down"]);
    const reasons = d.timeline.map((t) => t.reason).join("\n");
    expect(reasons).toMatch(/taking web-0 out of its load balancer/);
    expect(reasons).toMatch(/web-0 is back in its load balancer \(admin state None\)/);
    c.fabric.setAdminState("lb-web", "web", "web-2", "None");
  });

  it("a failing HTTP gate or a firing alert keeps the event Ready, named in waiting for, until it clears", async () => {
    const { c } = e;
    c.fabric.setHealth("app", 503);
    c.fabric.fireAlert("high-error-rate");
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-1"],
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    const blocked = await waitFor(
      "both gates named",
      async () => {
        const d = await c.status.event(ev.eventId, c.cluster);
        return d.gates.length === 2 ? d : null;
      },
      30_000,
    );
    expect(blocked.phase).toBe("Ready");
    expect(blocked.waitingFor).toMatch(
      /gate\(s\) to pass: app-health \(.*503.*\), errors \(alert rule is firing\)/,
    );
    c.fabric.setHealth("app", 200);
    await waitFor(
      "only the alert left",
      async () =>
        (await c.status.event(ev.eventId, c.cluster)).gates.map((g) => g.name).join() === "errors",
      30_000,
    );
    expect(simEvent(c.fabric, ev.eventId).phase).toBe("Scheduled");
    c.fabric.resolveAlert("high-error-rate");
    await waitForPhase(c, ev.eventId, ["Approving", "Started", "Recovering", "Completed"], 30_000);
  });

  it("an operator's force past a gate approves while it still fails, and is audited", async () => {
    const { c } = e;
    c.fabric.setHealth("app", 500);
    const ev = c.fabric.schedule({
      eventType: "Freeze",
      resources: ["web-3"],
      noticeSeconds: 300,
      durationInSeconds: 1,
      startedSeconds: 1,
    });
    await waitFor(
      "the gate named",
      async () => (await c.status.event(ev.eventId, c.cluster)).gates.length === 1,
      30_000,
    );
    await c.status.operator("force-gate", ev.eventId, {
      cluster: c.cluster,
      gate: "app-health",
      reason: "health check is broken, app verified by hand",
    });
    await waitForPhase(c, ev.eventId, ["Approving", "Started", "Recovering", "Completed"], 30_000);
    const d = await c.status.event(ev.eventId, c.cluster);
    const audit = d.timeline.find((t) => t.kind === "operator" && t.action === "forceGate");
    expect(audit).toMatchObject({
      by: "operator-key",
      reason: "health check is broken, app verified by hand",
    });
    expect(d.gateOverrides.map((o) => o.gate)).toEqual(["app-health"]);
    c.fabric.setHealth("app", 200);
  });
});
