import { applyReport, type ClusterState, emptyClusterState, type Transition } from "@quiesce/core";
import { ManualClock } from "@quiesce/fabric-simulator";
import { DEFAULT_POLICY, type Policy, PolicySet, policyFor } from "@quiesce/protocol/policy";
import { type PatchRunEvent, parseEventGridDelivery } from "@quiesce/protocol/published";
import { useContractArm } from "@quiesce/testkit/arm";
import { useAzurite } from "@quiesce/testkit/azurite";
import { drained, report, scheduled, started } from "@quiesce/testkit/documents";
import { uniquePrefix } from "@quiesce/testkit/harness";
import { beforeEach, describe, expect, it } from "vitest";
import { type PatchRun, patchRunEvent } from "../../fabric-simulator/src/maintenance/patchRuns";
import { openPatchRunTable, type PatchRunTable } from "../../functions/src/guestPatching/runTable";
import { GuestPatchingRuns } from "../../functions/src/guestPatching/service";
import type { Notification } from "../../functions/src/notify/due";
import type { Policies } from "../../functions/src/options";
import type { ClusterStore } from "../../functions/src/store";

/**
 * Update Manager's runs against Table Storage (Azurite) and the simulator's ARM through the real
 * client (functions/src/guestPatching): a pre-maintenance event meeting an event in maintenance
 * has its run cancelled once, whatever the number of copies Event Grid delivers; a cancel that
 * failed is tried again by the next copy; the gate holds while a run is announced.
 */
const azurite = useAzurite();
const clock = new ManualClock();
const c = useContractArm({ clock });
// Registered after the helper's reset, so it runs after it (vitest runs before-hooks in order).
beforeEach(() => {
  // Runs are Azure's, not the fabric's: they outlive a reset, and a run is named by its start.
  clock.advance(3600_000);
});

const id = "F7061BAC-AFDC-4513-B24B-AA5F13A16123";
const ev = scheduled(id, ["vm0", "vm1"]);

/** A cluster whose event was approved and started: in maintenance. */
function inMaintenance(p: Policy): ClusterState {
  let s = emptyClusterState("web");
  let now = clock.now() - 60_000;
  const send = (r: Parameters<typeof applyReport>[1]) => {
    now += 1000;
    s = applyReport(s, r, now, p).state;
  };
  send(report("vm0", 1, []));
  send(report("vm1", 1, []));
  send(report("vm0", 2, [ev], { hooks: [drained(id)] }));
  send(report("vm1", 2, [ev], { hooks: [drained(id)] }));
  send(report("vm0", 3, [started(ev)], { hooks: [drained(id)] }));
  return s;
}

interface Fixture {
  service: GuestPatchingRuns;
  runs: PatchRunTable;
  history: Transition[];
  notified: Notification[];
  config: string;
}

async function fixture(
  guestPatching: object,
  state: (p: Policy) => ClusterState,
): Promise<Fixture> {
  const config = `${c.sim.arm.resourceGroupId()}/providers/Microsoft.Maintenance/maintenanceConfigurations/patch-web`;
  const all = PolicySet.parse({
    default: { controlPlaneApproval: { ...DEFAULT_POLICY.controlPlaneApproval, mode: "off" } },
    clusters: { web: { guestPatching: { maintenanceConfigurations: [config], ...guestPatching } } },
  });
  const policies: Policies = { all, for: (c) => policyFor(all, c) };
  const history: Transition[] = [];
  const cluster = state(policies.for("web"));
  const store = {
    clustersToSweep: async () => ["web"],
    loadCluster: async () => ({ state: cluster }),
    appendHistory: async (_c: string, t: Transition[]) => {
      history.push(...t);
    },
  } as unknown as ClusterStore;
  const runs = openPatchRunTable({
    connectionString: azurite().connectionString,
    tablePrefix: uniquePrefix(),
  });
  await runs.init();
  const log = { child: () => log, info() {}, warn() {}, error() {}, debug() {} } as never;
  const notified: Fixture["notified"] = [];
  const notifier = {
    afterCommit: (ns: readonly Notification[]) => {
      notified.push(...ns);
    },
  };
  return {
    service: new GuestPatchingRuns({ runs, store, policies, clock, arm: c.arm, log, notifier }),
    runs,
    history,
    notified,
    config,
  };
}

async function control(path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${c.sim.url}/control/arm/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.json();
}

/** The simulator starts a run; its pre-event as the coordinator parses it. */
async function startRun(): Promise<{ run: PatchRun; pre: PatchRunEvent }> {
  const run = (await control("patchRuns", {
    configuration: "patch-web",
    startInSeconds: 1800,
  })) as PatchRun;
  const d = parseEventGridDelivery([patchRunEvent(run, "pre", "sub", clock.now())]);
  if (!d.ok || d.value.kind !== "events" || !d.value.patchRuns?.[0])
    throw new Error("no pre-event");
  return { run, pre: d.value.patchRuns[0] };
}

const puts = async () =>
  ((await control("requests")) as Array<{ method: string }>).filter((r) => r.method === "PUT")
    .length;

describe("a pre-maintenance event while an event of the cluster is in maintenance", () => {
  it("cancels the run through ARM once, records it in the events' history, and a redelivery changes nothing", async () => {
    const f = await fixture({ whileEventActive: "cancel" }, inMaintenance);
    const { pre } = await startRun();
    expect(await f.service.intake([pre])).toEqual({
      applied: 1,
      unchanged: 0,
      cancelled: 1,
      failed: 0,
    });
    const simRun = ((await control("patchRuns")) as PatchRun[]).at(-1);
    expect(simRun?.status).toBe("Cancelled");
    expect(f.history.map((t) => t.reason)).toEqual([
      expect.stringMatching(/^patch run \d+ of patch-web cancelled: event\(s\) F7061BAC/),
    ]);
    expect(f.notified).toEqual([
      expect.objectContaining({
        kind: "guestPatching",
        severity: "info",
        title: expect.stringMatching(/cancelled$/),
      }),
    ]);
    const before = await puts();
    expect(await f.service.intake([pre, pre])).toEqual({
      applied: 0,
      unchanged: 2,
      cancelled: 0,
      failed: 0,
    });
    expect(await puts()).toBe(before);
  });

  it("leaves the run alone with `allow`", async () => {
    const f = await fixture({ whileEventActive: "allow" }, inMaintenance);
    const { pre } = await startRun();
    expect(await f.service.intake([pre])).toMatchObject({ cancelled: 0, failed: 0 });
    expect(((await control("patchRuns")) as PatchRun[]).at(-1)?.status).toBe("Scheduled");
    expect(await puts()).toBe(0);
  });

  it("records a cancel past the cut-off as too late, without calling ARM", async () => {
    const f = await fixture({ whileEventActive: "cancel" }, inMaintenance);
    const { pre } = await startRun();
    clock.advance(1800_000);
    expect(await f.service.intake([pre])).toMatchObject({ cancelled: 0, failed: 0 });
    expect(await puts()).toBe(0);
    const [stored] = await f.runs.current([f.config], clock.now());
    expect(stored?.cancel).toMatchObject({ state: "tooLate" });
    expect(f.history.map((t) => t.reason)).toEqual([
      expect.stringMatching(/not possible: web: too late to cancel/),
    ]);
    expect(f.notified).toEqual([
      expect.objectContaining({ kind: "guestPatching", severity: "warning" }),
    ]);
  });

  it("answers a failed cancel as failed (the delivery is retried), and the next copy cancels", async () => {
    const f = await fixture({ whileEventActive: "cancel" }, inMaintenance);
    const { pre } = await startRun();
    await control("faults", { status: 500, method: "PUT", pathContains: "applyUpdates" });
    expect(await f.service.intake([pre])).toMatchObject({ cancelled: 0, failed: 1 });
    expect(await f.service.intake([pre])).toMatchObject({ cancelled: 1, failed: 0 });
    expect(((await control("patchRuns")) as PatchRun[]).at(-1)?.status).toBe("Cancelled");
  });
});

describe("the guest-patching gate's verdict", () => {
  it("fails from the pre-event until the post-event, naming the run", async () => {
    const f = await fixture({ holdApprovalsDuringPatching: true }, () => emptyClusterState("web"));
    const g = {
      maintenanceConfigurations: [f.config],
      whileEventActive: "allow" as const,
      holdApprovalsDuringPatching: true,
    };
    expect(await f.service.verdict(g)).toMatchObject({ pass: true });
    const { run, pre } = await startRun();
    await f.service.intake([pre]);
    expect(await f.service.verdict(g)).toMatchObject({
      pass: false,
      detail: expect.stringMatching(/^patch run \d+ of patch-web announced for/),
    });
    const post = parseEventGridDelivery([
      patchRunEvent({ ...run, status: "Succeeded" }, "post", "sub", clock.now()),
    ]);
    if (!post.ok || post.value.kind !== "events") throw new Error("no post-event");
    await f.service.intake(post.value.patchRuns ?? []);
    expect(await f.service.verdict(g)).toMatchObject({ pass: true });
  });
});
