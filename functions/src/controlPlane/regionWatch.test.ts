import { metrics } from "@opentelemetry/api";
import type { Member } from "@quiesce/core";
import { silentLogger } from "@quiesce/protocol";
import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import { useContractArm } from "@quiesce/testkit/arm";
import { useAzurite } from "@quiesce/testkit/azurite";
import { uniquePrefix } from "@quiesce/testkit/harness";
import { describe, expect, it } from "vitest";
import type { Notification } from "../notify/due";
import { RegionSupportTable } from "../store/regionSupport";
import { Telemetry } from "../telemetry/metrics";
import { createRegionPorts } from "./regionPorts";
import { RegionWatch } from "./regionWatch";

/**
 * The region watch against the fabric simulator's ARM (its per-region switch answers the
 * acknowledge 405 NotImplemented, as the Azure CLI's fixture) and a Table Storage table on
 * Azurite: probed once per interval, stored per region, shown per group with since and how,
 * alerted on where a group relies on it, and learnt again from a real acknowledge's answer.
 */
const azurite = useAzurite();
const c = useContractArm();

const T0 = Date.parse("2026-11-27T12:00:00Z");
const POLICY: Policy = DEFAULT_POLICY;

/** Relay members of avset-web, last seen `lastSeenAt`. */
function members(lastSeenAt: number): Map<string, Member[]> {
  const vms = Object.values(c.sim.state().vms).filter((v) => v.group === "avset-web");
  return new Map([
    [
      "web",
      vms.map((v) => ({
        vmName: v.name,
        vm: { name: v.name, vmId: v.vmId, resourceId: v.resourceId, zone: "1" },
        relayVersion: "1.0.0",
        dryRun: false,
        bootId: "b",
        incarnation: 1,
        eventKeys: [],
        firstSeenAt: lastSeenAt,
        lastSeenAt,
      })),
    ],
  ]);
}

async function setUp() {
  let now = T0;
  const sent: Notification[] = [];
  const table = RegionSupportTable.open({
    connectionString: azurite().connectionString,
    tablePrefix: uniquePrefix(),
  });
  await table.init();
  const watch = new RegionWatch(createRegionPorts(c.arm), table, {
    clock: { now: () => now },
    telemetry: new Telemetry(metrics.getMeter("test")),
    notifier: { afterCommit: (ns) => sent.push(...ns) },
    policies: { for: () => POLICY, all: { default: POLICY, clusters: new Map() } },
    log: silentLogger,
  });
  return { watch, table, sent, advance: (ms: number) => (now += ms) };
}

const group = { kind: "zone" as const, name: "1", memberCount: 4 };
const region = () => c.sim.state().topology.location.toLowerCase();

describe("where Azure offers approval through ARM", () => {
  it("probes at start-up, then not again within the interval, and shows the group available with since and how", async () => {
    const { watch } = await setUp();
    expect(await watch.probeDue(async () => members(T0))).toEqual({ probed: 1, places: 1 });
    expect(await watch.probeDue(async () => members(T0))).toBeNull();
    const [g] = await watch.annotate("web", [{ ...group, liveMembers: 4 }]);
    expect(g?.controlPlaneApproval).toEqual({
      availability: "available",
      region: region(),
      since: new Date(T0).toISOString(),
      how: "probe",
      detail: "404 InvalidScheduledEventId",
      relies: false,
    });
    expect(c.sim.events()).toEqual([]);
  });

  it("alerts once where a group with no live relay relies on it and the region answers 405, and keeps since while it stays so", async () => {
    const { watch, sent, advance } = await setUp();
    c.sim.arm.setMaintenance({ unsupportedRegions: [region()] });
    const silent = async () => members(T0 - 24 * 3_600_000);
    await watch.probeDue(silent);
    expect(sent.map((n) => [n.kind, n.severity, n.cluster])).toEqual([
      ["controlPlaneUnavailable", "critical", "web"],
    ]);
    advance(7 * 3_600_000);
    await watch.probeDue(silent);
    // The same episode: the same key, which the outbox sends once.
    expect(new Set(sent.map((n) => n.key)).size).toBe(1);
    const [g] = await watch.annotate("web", [{ ...group, liveMembers: 0 }]);
    expect(g?.controlPlaneApproval).toMatchObject({
      availability: "notAvailable",
      since: new Date(T0).toISOString(),
      how: "probe",
      detail: "405 NotImplemented",
      relies: true,
    });
  });

  it("does not alert for a group whose relays can approve", async () => {
    const { watch, sent } = await setUp();
    c.sim.arm.setMaintenance({ unsupportedRegions: [region()] });
    await watch.probeDue(async () => members(T0));
    expect(sent).toEqual([]);
  });

  it("learns from a real acknowledge's answer, and a new availability moves since", async () => {
    const { watch, advance } = await setUp();
    c.sim.arm.setMaintenance({ unsupportedRegions: [region()] });
    await watch.probeDue(async () => members(T0));
    c.sim.arm.setMaintenance({ unsupportedRegions: [] });
    advance(60_000);
    const vm = members(T0).get("web")?.[0]?.vm;
    if (!vm) throw new Error("no VM");
    await watch.learn("web", vm, { ok: false, status: 409, code: "Conflict" });
    advance(60_000);
    const [g] = await watch.annotate("web", [{ ...group, liveMembers: 4 }]);
    expect(g?.controlPlaneApproval).toMatchObject({
      availability: "available",
      since: new Date(T0 + 60_000).toISOString(),
      how: "acknowledge",
      detail: "409 Conflict",
    });
  });

  it("shows unknown for a group whose region was never learnt, and learns nothing from a 403", async () => {
    const { watch } = await setUp();
    const vm = members(T0).get("web")?.[0]?.vm;
    if (!vm) throw new Error("no VM");
    await watch.learn("web", vm, { ok: false, status: 403, code: "AuthorizationFailed" });
    const [g] = await watch.annotate("web", [{ ...group, liveMembers: 0 }]);
    expect(g?.controlPlaneApproval).toEqual({
      availability: "unknown",
      region: null,
      since: null,
      how: null,
      detail: null,
      relies: true,
    });
  });
});
