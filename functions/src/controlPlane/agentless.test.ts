import { metrics } from "@opentelemetry/api";
import { applyPublished, CONTROL_PLANE } from "@quiesce/core";
import { silentLogger, systemClock } from "@quiesce/protocol";
import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import { useAzurite } from "@quiesce/testkit/azurite";
import { published } from "@quiesce/testkit/documents";
import { ArmedFault, withFaults } from "@quiesce/testkit/faults";
import { uniquePrefix } from "@quiesce/testkit/harness";
import { waitFor } from "@quiesce/testkit/wait";
import { describe, expect, it } from "vitest";
import { ClusterStore, commitDecision, openTables, StatusQueries, zeroCounts } from "../store";
import { Telemetry } from "../telemetry/metrics";
import { type AgentlessRunner, type HookCaller, startDueAgentlessHooks } from "./agentless";

/**
 * The coordinator's hook runs for VMs without a relay, on Azurite, when a commit stops half-way:
 * the DecisionWriter writes readiness rows before the event row, so a claim or an outcome whose
 * event row loses a race to another VM's leaves its readiness row written. The retry must know
 * the row as its own, record its history, and decide the event with it (an agentless event is
 * approved from the last outcome's commit, not at the next sweep).
 */
const azurite = useAzurite();

const POLICY: Policy = {
  ...DEFAULT_POLICY,
  agentless: {
    enabled: true,
    drain: { url: "http://127.0.0.1:9/drain/{vmName}", timeoutSeconds: 10 },
    recover: { url: "http://127.0.0.1:9/recover/{vmName}", timeoutSeconds: 10 },
    maxAttempts: 3,
  },
};
const CLUSTER = "appliances";
const runner = (
  call: HookCaller,
  gateInputs: AgentlessRunner["gateInputs"] = async () => ({}),
): AgentlessRunner => ({ call, gateInputs });
const VMS = ["app-0", "app-1"];

async function setUp(policy: Policy = POLICY) {
  const totals = zeroCounts();
  const tables = openTables(
    { connectionString: azurite().connectionString },
    uniquePrefix(),
    totals,
  );
  const faults = new ArmedFault();
  const store = new ClusterStore(withFaults(tables, faults), totals);
  await store.init();
  const deps = {
    store,
    clock: systemClock,
    telemetry: new Telemetry(metrics.getMeter("test")),
    retry: { maxAttempts: 5, baseDelayMs: 1 },
    notifier: { afterCommit: () => {} },
    log: silentLogger,
  };
  // Azure publishes a Freeze of both VMs, no relay anywhere.
  const loaded = await store.loadCluster(CLUSTER);
  const notBefore = new Date(Date.now() + 600_000).toUTCString();
  const seen = applyPublished(
    loaded.state,
    published("Scheduled", VMS, { notBefore }),
    Date.now(),
    policy,
  );
  await commitDecision(store, loaded, {
    state: seen.state,
    transitions: seen.transitions,
    forget: [],
  });
  const key = Object.keys(seen.state.events)[0] as string;
  const queries = new StatusQueries(tables, store.memberRows);
  const history = async () =>
    (await queries.timeline(CLUSTER, key, 100)).rows.map((r) => r.reason).join("\n");
  return { store, deps, faults, key, history };
}

describe("agentless hook runs across a commit stopped half-way", () => {
  it("a claim whose event row lost a race is still its own: the hook runs once and its claim is in the history", async () => {
    const { store, deps, faults, history } = await setUp();
    const calls: string[] = [];
    const call: HookCaller = async (_hook, vm) => {
      calls.push(vm);
      return { result: "succeeded", detail: `drained ${vm}` };
    };
    faults.arm("Events", "conflictBefore"); // the first claim's event row
    const { state } = await store.loadCluster(CLUSTER);
    const runs = startDueAgentlessHooks(deps, runner(call), state, POLICY, undefined, () => {});
    expect(await Promise.all(runs)).toEqual([1, 1]);
    expect(faults.injected).toHaveLength(1);
    expect(calls.sort()).toEqual(VMS);
    const h = await history();
    for (const vm of VMS) {
      expect(h).toContain(`the coordinator runs the drain hook of ${vm} (attempt 1`);
      expect(h).toContain(`drain hook of ${vm} succeeded`);
    }
  });

  it("an outcome whose event row lost a race to the other VM's still elects the control plane from its own commit", async () => {
    const { store, deps, faults, key, history } = await setUp();
    const firstRecorded = { done: false };
    const call: HookCaller = async (_hook, vm) => {
      if (vm === "app-1") {
        // app-0's outcome is committed first; app-1's event row then loses a race.
        await waitFor("app-0's outcome recorded", () => firstRecorded.done, 10_000, 5);
        faults.arm("Events", "conflictBefore");
      }
      return { result: "succeeded", detail: `drained ${vm}` };
    };
    const { state } = await store.loadCluster(CLUSTER);
    const runs = startDueAgentlessHooks(deps, runner(call), state, POLICY, undefined, () => {
      firstRecorded.done = true;
    });
    await Promise.all(runs);
    expect(faults.injected.map((f) => f.table)).toEqual(["Events"]);
    // No sweep ran: the last outcome's own commit gave the control plane the lease.
    const after = (await store.loadCluster(CLUSTER)).state.events[key];
    expect(after?.phase).toBe("Approving");
    expect(after?.lease).toMatchObject({ holder: CONTROL_PLANE });
    const h = await history();
    expect(h).toContain("drain hook of app-1 succeeded");
    expect(h).toMatch(/control plane elected approver \(rule allDrained/);
  });

  it("with gates, the last drain's record evaluates them and elects the control plane; a failing gate keeps the event Ready", async () => {
    const gated: Policy = {
      ...POLICY,
      gates: [
        {
          kind: "http",
          name: "app-health",
          url: "http://127.0.0.1:9/health",
          expectStatus: 200,
          timeoutSeconds: 2,
        },
      ],
    };
    for (const passes of [true, false]) {
      const { store, deps, key } = await setUp(gated);
      const asked: string[] = [];
      const verdicts = async (cluster: string) => {
        asked.push(cluster);
        return {
          gates: [{ name: "app-health", pass: passes, detail: passes ? "HTTP 200" : "HTTP 503" }],
        };
      };
      const call: HookCaller = async (_hook, vm) => ({
        result: "succeeded",
        detail: `drained ${vm}`,
      });
      const { state } = await store.loadCluster(CLUSTER);
      await Promise.all(
        startDueAgentlessHooks(deps, runner(call, verdicts), state, gated, undefined, () => {}),
      );
      expect(asked).toEqual([CLUSTER, CLUSTER]); // once per drain record
      const after = (await store.loadCluster(CLUSTER)).state.events[key];
      if (passes) expect(after?.lease).toMatchObject({ holder: CONTROL_PLANE });
      else {
        expect(after?.phase).toBe("Ready");
        expect(after?.gates?.failing.map((g) => g.name)).toEqual(["app-health"]);
      }
    }
  });
});
