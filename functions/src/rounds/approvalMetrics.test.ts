import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { CONTROL_PLANE } from "@quiesce/core";
import { type Clock, silentLogger, systemClock } from "@quiesce/protocol";
import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import { useAzurite } from "@quiesce/testkit/azurite";
import { published, report, scheduled } from "@quiesce/testkit/documents";
import { ManualClock, uniquePrefix } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";
import { runDueAcknowledges } from "../controlPlane/acknowledge";
import { startDueAgentlessHooks } from "../controlPlane/agentless";
import type { ControlPlanePorts } from "../controlPlane/ports";
import { ClusterStore, openTables, zeroCounts } from "../store";
import { METRICS, Telemetry } from "../telemetry/metrics";
import { runRound } from "./runner";

/**
 * Every round derives its effects (rounds/runner.ts): an event approved through Azure Resource
 * Manager, its VMs drained by relays or by the coordinator's agentless hooks, is counted in the
 * approval metrics as a relay's approval is. Before the one runner, the control plane's rounds
 * derived none, and such events were missing from `quiesce.events` (issue 30).
 */
const azurite = useAzurite();
const CLUSTER = "appliances";
const VMS = ["app-0", "app-1"];

/** ARM's answer to the acknowledge: the one part of Azure that cannot run here. */
const acknowledging = (calls: string[]) =>
  ({
    acknowledge: async (vm: { name: string }, eventId: string) => {
      calls.push(`${vm.name} ${eventId}`);
      return { ok: true as const, value: { scope: "/subscriptions/s/resourceGroups/rg" } };
    },
  }) as unknown as ControlPlanePorts;

async function setUp(clock: Clock = systemClock) {
  const totals = zeroCounts();
  const tables = openTables(
    { connectionString: azurite().connectionString },
    uniquePrefix(),
    totals,
  );
  const store = new ClusterStore(tables, totals, clock);
  await store.init();
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const deps = {
    store,
    clock,
    telemetry: new Telemetry(new MeterProvider({ readers: [reader] }).getMeter("test")),
    retry: { maxAttempts: 5, baseDelayMs: 1 },
    notifier: { afterCommit: () => {} },
    log: silentLogger,
  };
  /** The `quiesce.events` counter's points, as "<outcome> <rule>". */
  const outcomes = async () => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .filter((m) => m.descriptor.name === METRICS.events)
      .flatMap((m) => m.dataPoints as { attributes: Record<string, unknown>; value: unknown }[])
      .map((p) => `${p.attributes.outcome} ${p.attributes.rule ?? "-"} ${p.value}`);
  };
  return { store, deps, outcomes };
}

describe("approvals through Azure Resource Manager, in the approval metrics", () => {
  it("counts an agentless event whose hooks drained its VMs and ARM approved", async () => {
    const policy: Policy = {
      ...DEFAULT_POLICY,
      agentless: {
        enabled: true,
        drain: { url: "http://127.0.0.1:9/drain/{vmName}", timeoutSeconds: 10 },
        recover: { url: "http://127.0.0.1:9/recover/{vmName}", timeoutSeconds: 10 },
        maxAttempts: 3,
      },
    };
    const { store, deps, outcomes } = await setUp();
    const notBefore = new Date(Date.now() + 600_000).toUTCString();
    await runRound(
      deps,
      CLUSTER,
      { kind: "published", observations: [published("Scheduled", VMS, { notBefore })], inputs: {} },
      { policy },
    );
    const runner = {
      call: async () => ({ result: "succeeded" as const, detail: "drained" }),
      gateInputs: async () => ({}),
    };
    const loaded = await store.loadCluster(CLUSTER);
    await Promise.all(
      startDueAgentlessHooks(deps, runner, loaded.state, policy, undefined, () => {}),
    );
    const calls: string[] = [];
    const leased = (await store.loadCluster(CLUSTER)).state;
    expect(Object.values(leased.events)[0]?.lease).toMatchObject({ holder: CONTROL_PLANE });
    const acks = await runDueAcknowledges(deps, acknowledging(calls), leased, policy);
    expect(acks).toEqual({ acknowledged: 1, failed: 0 });
    expect(calls).toHaveLength(1);
    expect(await outcomes()).toEqual(["approved allDrained 1"]);
  });

  it("counts an event its relays drained whose approver vanished, approved by the control plane through ARM", async () => {
    const policy: Policy = {
      ...DEFAULT_POLICY,
      controlPlaneApproval: { ...DEFAULT_POLICY.controlPlaneApproval, afterSeconds: 0 },
    };
    const clock = new ManualClock(Date.now());
    const { store, deps, outcomes } = await setUp(clock);
    const ev = scheduled("a1b2c3d4-0000-4000-8000-000000000001", VMS, {
      NotBefore: new Date(clock.now() + 600_000).toUTCString(),
    });
    const at = new Date(clock.now()).toISOString();
    const drained = {
      eventId: ev.EventId,
      drain: { status: "succeeded" as const, attempt: 1, startedAt: at, finishedAt: at },
    };
    for (const vm of VMS) {
      const r = report(vm, 1, [ev], { cluster: CLUSTER, hooks: [drained] });
      await runRound(deps, CLUSTER, { kind: "report", report: r, inputs: {} }, { policy });
    }
    // The elected relay never approves: its lease runs out, and the sweep's tick hands the
    // approval to the control plane.
    clock.advance((policy.approvalLeaseSeconds + 1) * 1000);
    await runRound(
      deps,
      CLUSTER,
      { kind: "tick", eventRetentionMs: 86_400_000, inputs: {} },
      { policy },
    );
    const leased = (await store.loadCluster(CLUSTER)).state;
    expect(Object.values(leased.events)[0]?.lease).toMatchObject({ holder: CONTROL_PLANE });
    expect(await outcomes()).toEqual([]); // elected, not yet approved
    const calls: string[] = [];
    await runDueAcknowledges(deps, acknowledging(calls), leased, policy);
    expect(calls).toHaveLength(1);
    expect(await outcomes()).toEqual(["approved allDrained 1"]);
  });
});
