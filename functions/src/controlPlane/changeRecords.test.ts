import { metrics } from "@opentelemetry/api";
import { applyPublished, type ClusterState } from "@quiesce/core";
import { getInstanceMetadata } from "@quiesce/fabric-simulator";
import { silentLogger, systemClock } from "@quiesce/protocol";
import { vmIdentityFromInstanceMetadata } from "@quiesce/protocol/imds";
import { DEFAULT_POLICY } from "@quiesce/protocol/policy";
import { useContractArm } from "@quiesce/testkit/arm";
import { useAzurite } from "@quiesce/testkit/azurite";
import { published } from "@quiesce/testkit/documents";
import { uniquePrefix } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";
import { changeSafetyOptions } from "../configChangeSafety";
import { ClusterStore, commitDecision, openTables, StatusQueries, zeroCounts } from "../store";
import { Telemetry } from "../telemetry/metrics";
import { createArmPorts } from "./armPorts";
import { createChangeRecordPorts } from "./changeRecordPorts";
import { runDueChangeRecords } from "./changeRecords";

/**
 * Change records through the round runner, on Azurite, against the fabric simulator's Change
 * Safety under a Deny policy: one record per event, its id stored with the event, made once
 * however often the sweep runs (a restarted coordinator included), closed when the event ends,
 * and every write carrying a policy token the simulator issued for it.
 */
const azurite = useAzurite();
const CLUSTER = "changes";
const VMS = ["web-0", "web-1"];

describe("change records, one per event", () => {
  const c = useContractArm();

  async function setUp() {
    const totals = zeroCounts();
    const tables = openTables(
      { connectionString: azurite().connectionString },
      uniquePrefix(),
      totals,
    );
    const store = new ClusterStore(tables, totals);
    await store.init();
    const deps = {
      store,
      clock: systemClock,
      telemetry: new Telemetry(metrics.getMeter("test")),
      retry: { maxAttempts: 5, baseDelayMs: 1 },
      notifier: { afterCommit: () => {} },
      log: silentLogger,
    };
    const ports = createChangeRecordPorts(
      c.arm,
      changeSafetyOptions({
        policyToken: true,
        changeRecords: {
          scope: c.sim.arm.resourceGroupId(),
          changeType: "ManualTouch",
          rolloutType: "Normal",
        },
      }),
    );
    if (!ports) throw new Error("change records are on");
    const notBefore = new Date(Date.now() + 600_000);
    notBefore.setUTCMilliseconds(0);
    const observe = async (status: "Scheduled" | "Canceled") => {
      const loaded = await store.loadCluster(CLUSTER);
      const seen = applyPublished(
        loaded.state,
        published(status, VMS, { notBefore: notBefore.toUTCString() }),
        Date.now(),
        DEFAULT_POLICY,
      );
      await commitDecision(store, loaded, {
        state: seen.state,
        transitions: seen.transitions,
        forget: [],
      });
    };
    const sweep = async (): Promise<ClusterState> => {
      const { state } = await store.loadCluster(CLUSTER);
      await runDueChangeRecords(deps, ports, state, DEFAULT_POLICY);
      return (await store.loadCluster(CLUSTER)).state;
    };
    const history = async (key: string) =>
      (await new StatusQueries(tables, store.memberRows).timeline(CLUSTER, key, 100)).rows.map(
        (r) => r.reason,
      );
    return { observe, sweep, history, notBefore, deps, ports };
  }

  it("opens one record when the event is seen, stores its id, and makes no second one on later sweeps or a restart", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Deny" });
    const { observe, sweep, history, notBefore, deps, ports } = await setUp();
    await observe("Scheduled");
    const after = await sweep();
    const [e] = Object.values(after.events);
    const records = c.sim.arm.changeSafety().records as Array<{
      id: string;
      properties: Record<string, unknown>;
    }>;
    expect(records).toHaveLength(1);
    expect(e?.changeRecord).toMatchObject({ id: records[0]?.id, step: "open" });
    expect(records[0]?.properties).toMatchObject({
      changeType: "ManualTouch",
      rolloutType: "Normal",
      anticipatedStartTime: notBefore.toISOString(),
      // DurationInSeconds 5: the record plans NotBefore + 5 s.
      anticipatedEndTime: new Date(notBefore.getTime() + 5_000).toISOString(),
      changeDefinition: { kind: "Targets", name: "TargetSelection" },
    });
    expect(JSON.stringify(records[0]?.properties.changeDefinition)).toContain("web-0");
    // The PUT carried a token the simulator issued for it (Deny would have refused it otherwise).
    expect(c.sim.arm.changeSafety().guarded.map((g) => g.method)).toEqual(["PUT"]);
    expect((await history(e?.key ?? "")).join("\n")).toContain(
      `change record opened (Azure Change Safety): ${records[0]?.id}`,
    );
    // Later sweeps, and another instance after a restart (fresh ports, same store): nothing due.
    await sweep();
    const { state } = await deps.store.loadCluster(CLUSTER);
    expect(await runDueChangeRecords(deps, ports, state, DEFAULT_POLICY)).toBe(0);
    expect(c.sim.arm.changeSafety().records).toHaveLength(1);
  });

  it("closes the record when the event ends, with how it ended", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Deny" });
    const { observe, sweep } = await setUp();
    await observe("Scheduled");
    await sweep();
    await observe("Canceled");
    const after = await sweep();
    const [e] = Object.values(after.events);
    expect(e?.phase).toBe("Cancelled");
    expect(e?.changeRecord).toMatchObject({ step: "closed", outcome: "Cancelled" });
    const [record] = c.sim.arm.changeSafety().records as Array<{
      properties: Record<string, unknown>;
    }>;
    expect(record?.properties.comments).toBe("Cancelled: Azure withdrew the scheduled event.");
    expect(c.sim.arm.changeSafety().guarded.map((g) => g.method)).toEqual(["PUT", "PATCH"]);
  });

  it("acknowledges and sets load-balancer admin state with tokens naming the event's open record, where the policy wants a change reference", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Deny", requireChangeReference: true });
    const { observe, sweep } = await setUp();
    await observe("Scheduled");
    const [e] = Object.values((await sweep()).events);
    const record = e?.changeRecord?.id ?? "";
    expect(record).not.toBe("");
    const eventId = c.sim.schedule({ eventType: "Reboot", group: "avset-web" }).eventId;
    const md = await getInstanceMetadata(c.sim.imdsUrl("web-0"));
    if (!md.body) throw new Error("no instance metadata");
    const vm = vmIdentityFromInstanceMetadata(md.body);
    const ports = createArmPorts(c.arm, { policyToken: true });
    // Without the change reference the evaluation refuses the token: the acknowledge is not sent.
    expect(await ports.acknowledge(vm, eventId)).toMatchObject({
      ok: false,
      error: { code: "PolicyTokenRefused" },
    });
    expect(await ports.acknowledge(vm, eventId, record)).toMatchObject({ ok: true });
    const acked = c.sim.arm.changeSafety().guarded.filter((g) => g.path.endsWith("/acknowledge"));
    expect(acked).toEqual([
      { method: "POST", path: expect.stringContaining(eventId), changeReference: record },
    ]);
    // The load balancer's admin state: the pool's PUT is guarded the same way, its GET is not.
    const addresses = await ports.backendAddresses(vm);
    const address = addresses.ok ? addresses.value[0] : undefined;
    if (!address) throw new Error("web-0 is in no pool");
    expect(await ports.setAdminState(address, "Down", undefined, record)).toMatchObject({
      ok: true,
    });
    const pools = c.sim.arm
      .changeSafety()
      .guarded.filter((g) => g.path.includes("/backendAddressPools/"));
    expect(pools).toEqual([{ method: "PUT", path: expect.any(String), changeReference: record }]);
  });

  it("records a refused token as the call's failure, in the history, without the write", async () => {
    c.sim.arm.setChangeSafety({ missingTokenAction: "Deny", refuse: true });
    const { observe, sweep, history } = await setUp();
    await observe("Scheduled");
    const [e] = Object.values((await sweep()).events);
    expect(e?.changeRecord).toMatchObject({ step: "opening", id: null, attempts: 1 });
    expect(e?.changeRecord?.lastError).toContain("PolicyTokenRefused");
    expect(c.sim.arm.changeSafety().records).toHaveLength(0);
    expect((await history(e?.key ?? "")).join("\n")).toMatch(
      /could not open the change record \(attempt 1 of 5\): ARM request PolicyTokenRefused: .*change freeze/,
    );
  });
});
