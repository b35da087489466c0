import { writeFileSync } from "node:fs";
import { type FabricSimulator, ManualClock, startFabricSimulator } from "@quiesce/fabric-simulator";
import { systemClock } from "@quiesce/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { emptyState, type RelayState } from "../../relay/src/decisions/state";
import { connectKubernetes } from "../../relay/src/kubernetes/client";
import {
  conditionsPatch,
  LIFECYCLE_TYPES,
  REASONS,
  wantedConditions,
} from "../../relay/src/kubernetes/conditions";
import { ConditionsWriter } from "../../relay/src/kubernetes/conditionsWriter";
import { silentLogger } from "../../relay/src/log";
import { tempDir } from "../../relay/test/support/wait";
import {
  conditionsMergeKey,
  contractProblems,
  kepConditionTypes,
  kepExampleReasons,
  kepGateDisabled,
  nodeConditionFields,
  SCHEMA,
} from "./kubernetesFixtures";

/**
 * The Node lifecycle conditions against their sources (fixtures/kubernetes/SOURCES.md): KEP-5683
 * (the four types, the example reasons, the gate) and core/v1 types.go (NodeStatus.conditions
 * merges by `type`; NodeCondition's fields), held against both the relay's writes and the fabric
 * simulator's `nodes/status`, so neither can drift from the KEP with the other.
 */

const SS = "aks-nodepool1-12345678-vmss";
const run = (status: "running" | "succeeded") => ({
  status,
  attempt: 1,
  startedAt: "2026-11-27T10:00:00.000Z",
});
/** Every phase of an event's life, as the relay's state shows it. */
function phases(): RelayState[] {
  const event = {
    EventId: "E1",
    EventType: "Reboot",
    Resources: [`${SS}_0`],
    EventStatus: "Scheduled",
    NotBefore: "Fri, 27 Nov 2026 10:15:00 GMT",
  };
  const base = { eventId: "E1", firstSeenAt: "2026-11-27T10:00:00.000Z", event };
  const started = { ...event, EventStatus: "Started", NotBefore: "" };
  return [
    { ...base },
    { ...base, drain: run("running") },
    { ...base, drain: run("succeeded") },
    { ...base, drain: run("succeeded"), event: started },
    { ...base, drain: run("succeeded"), goneAt: "2026-11-27T11:00:00.000Z" },
  ].map((e) => ({ ...emptyState(), events: Object.assign(Object.create(null), { e1: e }) }));
}

describe("the relay's conditions are the KEP's", () => {
  it("reads the fixtures: four lifecycle types, DrainCompleted among the reasons, no change with the gate off, merge key type", () => {
    expect([...kepConditionTypes].sort()).toEqual([...LIFECYCLE_TYPES].sort());
    expect(kepExampleReasons).toEqual([
      "AdminRequested",
      "DrainCompleted",
      "MaintenanceWindow",
      "NodeShutdown",
    ]);
    expect(kepGateDisabled).toBe("No changes");
    expect(conditionsMergeKey).toBe("type");
    expect(nodeConditionFields.sort()).toEqual(
      ["type", "status", "lastHeartbeatTime", "lastTransitionTime", "reason", "message"].sort(),
    );
  });

  it("writes only the KEP's types, True or False, CamelCase reasons, DrainCompleted for Drained, NodeCondition's fields", () => {
    expect(kepExampleReasons).toContain(REASONS.drainCompleted);
    let current: ReturnType<typeof conditionsPatch> = null;
    const written = phases().flatMap((s, i) => {
      const p = conditionsPatch(current?.status.conditions ?? [], wantedConditions(s), "1", i);
      if (p) current = { ...p, status: { conditions: merge(current, p) } };
      return p?.status.conditions ?? [];
    });
    expect(written.length).toBeGreaterThan(0);
    for (const c of written) {
      expect(kepConditionTypes).toContain(c.type);
      expect(["True", "False"]).toContain(c.status);
      expect(c.reason).toMatch(/^[A-Z][a-z]+(?:[A-Z][a-z]+)+$/);
      for (const k of Object.keys(c)) expect(nodeConditionFields).toContain(k);
      for (const t of [c.lastHeartbeatTime, c.lastTransitionTime])
        expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    expect(written.find((c) => c.type === "Drained" && c.status === "True")?.reason).toBe(
      "DrainCompleted",
    );
  });
});

/** What a strategic merge by `type` makes of `before` and a patch (for the loop above). */
function merge(
  before: { status: { conditions: { type: string }[] } } | null,
  p: { status: { conditions: { type: string }[] } },
) {
  const out = [...(before?.status.conditions ?? [])];
  for (const c of p.status.conditions) {
    const i = out.findIndex((x) => x.type === c.type);
    if (i >= 0) out[i] = { ...out[i], ...c };
    else out.push(c);
  }
  return out as never;
}

describe("the relay's writes through the real client, on the simulator's nodes/status", () => {
  let sim: FabricSimulator;
  let dir: { path: string; remove: () => Promise<void> };
  beforeAll(async () => {
    sim = await startFabricSimulator({
      clock: new ManualClock(),
      topology: {
        groups: [{ kind: "scaleSetPlacementGroup", name: "pool", scaleSetName: SS, vms: 2 }],
      },
    });
    dir = await tempDir();
    writeFileSync(`${dir.path}/token`, sim.kubernetes.token);
  });
  afterAll(async () => {
    await sim?.stop();
    await dir?.remove();
  });
  beforeEach(() => sim.reset());

  it("merges each phase's patch by the fixture's key into a valid Node, leaving Ready and the other node alone", async () => {
    const r = sim.state().vms[`${SS}_0`];
    if (!r) throw new Error("no VM");
    const w = new ConditionsWriter(
      () =>
        connectKubernetes({
          apiUrl: sim.kubernetes.url,
          tokenFile: `${dir.path}/token`,
          caFile: "none",
        }),
      silentLogger,
      systemClock,
    );
    const vm = { name: r.name, vmId: r.vmId, resourceId: r.resourceId };
    const seen: string[] = [];
    for (const s of phases()) {
      w.observe(s, vm, new AbortController().signal);
      await w.settled();
      seen.push(
        sim.kubernetes
          .nodeOfVm(r.name)
          .conditions.map((c) => `${c.type}=${c.status}`)
          .join(" "),
      );
    }
    expect(seen).toEqual([
      "Ready=True MaintenancePlanned=True",
      "Ready=True MaintenancePlanned=True DrainInProgress=True",
      "Ready=True MaintenancePlanned=True DrainInProgress=False Drained=True",
      "Ready=True MaintenancePlanned=False DrainInProgress=False Drained=True MaintenanceInProgress=True",
      "Ready=True MaintenancePlanned=False DrainInProgress=False Drained=False MaintenanceInProgress=False",
    ]);
    const admin = sim.kubernetes.issueToken({ user: "admin" });
    const res = await fetch(
      `${sim.kubernetes.url}/api/v1/nodes/${sim.kubernetes.nodeOfVm(r.name).name}`,
      {
        headers: { authorization: `Bearer ${admin.token}` },
      },
    );
    const node = await res.json();
    expect(await contractProblems(SCHEMA.node, node, { apiVersion: "v1", kind: "Node" })).toEqual(
      [],
    );
    expect(sim.kubernetes.nodeOfVm(`${SS}_1`).conditions.map((c) => c.type)).toEqual(["Ready"]);
  });
});
