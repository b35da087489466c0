import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { applyReport, type ClusterState, emptyClusterState } from "@quiesce/core";
import {
  armToken,
  type FabricSimulator,
  ManualClock,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import { DEFAULT_POLICY, type Policy, PolicySet, policyFor } from "@quiesce/protocol/policy";
import { drained, report, scheduled, started } from "@quiesce/testkit/documents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getActionRule } from "../../functions/src/arm/actionRules";
import { type ArmClient, createArmClient } from "../../functions/src/arm/client";
import { syncMaintenanceSignal } from "../../functions/src/maintenanceSignal/sync";
import type { Policies } from "../../functions/src/options";
import { MaintenanceGauges } from "../../functions/src/telemetry/maintenanceActive";

/**
 * The "maintenance active" signal (functions/src/maintenanceSignal): after a sweep, the gauges
 * name exactly the VMs of events in maintenance, and an alert processing rule a policy names is
 * scoped through ARM to exactly those VMs and enabled, then disabled once none is left; the rule
 * is deployed as infra/examples/alert-suppression deploys it (disabled, over its resource group).
 */
let sim: FabricSimulator;
let arm: ArmClient;
let token: string;
beforeAll(async () => {
  sim = await startFabricSimulator({ clock: new ManualClock() });
  token = await armToken(sim.identity);
  arm = createArmClient({
    endpoint: sim.armUrl,
    credential: { getToken: async () => ({ token }) },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  await arm?.close();
  await sim?.stop();
});

const id = "A7061BAC-AFDC-4513-B24B-AA5F13A16123";
const ev = scheduled(id, ["vm0", "vm1"]);
const vmId = (vm: string) =>
  `/subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachines/${vm}`;

/** vm0 and vm1 drained and their event approved and started; vm2 idle. */
function webInMaintenance(p: Policy): ClusterState {
  let s = emptyClusterState("web");
  let now = Date.UTC(2026, 0, 5);
  const send = (r: Parameters<typeof applyReport>[1]) => {
    now += 1000;
    s = applyReport(s, r, now, p).state;
  };
  for (const vm of ["vm0", "vm1", "vm2"]) send(report(vm, 1, []));
  send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
  send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
  send(report("vm0", 3, [started(ev)], { hooks: [drained(id)] }));
  return s;
}

describe("the maintenance-active signal", () => {
  it("scopes the team's alert processing rule to exactly the VMs under maintenance, then disables it", async () => {
    const rule = `${sim.arm.resourceGroupId()}/providers/Microsoft.AlertsManagement/actionRules/quiesce-maintenance-suppression`;
    // As the Bicep example deploys it.
    const deployed = await fetch(`${sim.armUrl}${rule}?api-version=2021-08-08`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        location: "Global",
        properties: {
          enabled: false,
          scopes: [sim.arm.resourceGroupId()],
          conditions: [{ field: "Severity", operator: "Equals", values: ["Sev3"] }],
          actions: [{ actionType: "RemoveAllActionGroups" }],
        },
      }),
    });
    expect(deployed.status).toBe(201);
    const all = PolicySet.parse({
      default: { controlPlaneApproval: { ...DEFAULT_POLICY.controlPlaneApproval, mode: "off" } },
      clusters: { web: { maintenanceSignal: { alertProcessingRules: [rule] } } },
    });
    const policies: Policies = { all, for: (c) => policyFor(all, c) };
    const gauges = new MaintenanceGauges(new MeterProvider().getMeter("test"));
    const log = { child: () => log, info() {}, warn() {}, error() {}, debug() {} } as never;

    const during = await syncMaintenanceSignal(
      { policies, gauges, arm },
      new Map([["web", webInMaintenance(policies.for("web"))]]),
      log,
    );
    expect(during).toEqual({ vms: 2, rulesWritten: 1, rulesFailed: 0 });
    expect(
      gauges
        .snapshot()
        .get("web")
        ?.map((v) => v.vm),
    ).toEqual(["vm0", "vm1"]);
    const scoped = await getActionRule(arm, rule);
    expect(scoped.ok && scoped.value.properties).toMatchObject({
      enabled: true,
      scopes: [vmId("vm0"), vmId("vm1")],
      conditions: [{ field: "Severity", operator: "Equals", values: ["Sev3"] }],
      actions: [{ actionType: "RemoveAllActionGroups" }],
    });

    // Unchanged: nothing written. Then the cluster has no event left: the sweep no longer ticks it.
    expect(
      await syncMaintenanceSignal(
        { policies, gauges, arm },
        new Map([["web", webInMaintenance(policies.for("web"))]]),
        log,
      ),
    ).toMatchObject({ rulesWritten: 0 });
    expect(await syncMaintenanceSignal({ policies, gauges, arm }, new Map(), log)).toEqual({
      vms: 0,
      rulesWritten: 1,
      rulesFailed: 0,
    });
    expect(gauges.snapshot().size).toBe(0);
    const after = await getActionRule(arm, rule);
    expect(after.ok && after.value.properties).toMatchObject({
      enabled: false,
      scopes: [vmId("vm0"), vmId("vm1")],
    });
  });

  it("counts a rule it cannot read as failed, and still refreshes the gauges", async () => {
    const missing = `${sim.arm.resourceGroupId()}/providers/Microsoft.AlertsManagement/actionRules/not-deployed`;
    const all = PolicySet.parse({
      clusters: { web: { maintenanceSignal: { alertProcessingRules: [missing] } } },
    });
    const gauges = new MaintenanceGauges(new MeterProvider().getMeter("test"));
    const log = { child: () => log, info() {}, warn() {}, error() {}, debug() {} } as never;
    const r = await syncMaintenanceSignal(
      { policies: { all, for: (c) => policyFor(all, c) }, gauges, arm },
      new Map([["web", webInMaintenance(policyFor(all, "web"))]]),
      log,
    );
    expect(r).toMatchObject({ rulesFailed: 1, rulesWritten: 0 });
    expect(gauges.snapshot().get("web")).toHaveLength(2);
  });
});

describe("the maintenance-active gauges", () => {
  it("export one series per VM with its group and resource id, keep a cluster the sweep skipped, and read 0 once over or stale", async () => {
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
    let now = 0;
    const gauges = new MaintenanceGauges(
      new MeterProvider({ readers: [reader] }).getMeter("t"),
      300_000,
      () => now,
    );
    const all = PolicySet.parse({});
    const policies: Policies = { all, for: (c) => policyFor(all, c) };
    const log = { child: () => log, info() {}, warn() {}, error() {}, debug() {} } as never;
    await syncMaintenanceSignal(
      { policies, gauges, arm: null },
      new Map([["web", webInMaintenance(policies.for("web"))]]),
      log,
    );
    const points = async (name: string) => {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .filter((m) => m.descriptor.name === name)
        .flatMap((m) => m.dataPoints.map((p) => ({ value: p.value, ...p.attributes })));
    };
    expect(await points("quiesce.vm.maintenance_active")).toEqual([
      { value: 1, cluster: "web", vm: "vm0", group: "vms", eventId: id, resourceId: vmId("vm0") },
      { value: 1, cluster: "web", vm: "vm1", group: "vms", eventId: id, resourceId: vmId("vm1") },
    ]);
    expect(await points("quiesce.group.maintenance_active")).toEqual([
      { value: 2, cluster: "web", group: "vms" },
    ]);
    await syncMaintenanceSignal({ policies, gauges, arm: null }, new Map(), log, ["web"]);
    expect(gauges.snapshot().get("web")).toHaveLength(2);
    now += 300_001;
    expect((await points("quiesce.vm.maintenance_active")).map((p) => p.value)).toEqual([0, 0]);
    await syncMaintenanceSignal({ policies, gauges, arm: null }, new Map(), log);
    expect((await points("quiesce.vm.maintenance_active")).map((p) => p.value)).toEqual([0, 0]);
    expect((await points("quiesce.group.maintenance_active")).map((p) => p.value)).toEqual([0]);
  });
});
