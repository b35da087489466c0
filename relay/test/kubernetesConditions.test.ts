import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FabricSimulator,
  ManualClock,
  RELAY_RULES,
  startFabricSimulator,
} from "@quiesce/fabric-simulator";
import { createLogger, type LogLevel } from "@quiesce/protocol";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { type RelayHandle, startRelay } from "../src";
import { PREFIX } from "../src/kubernetes/conditions";
import { CoordinatorStandIn } from "./support/coordinatorStandIn";
import { relaySettings, SS, writeToken } from "./support/kubernetes";
import { tempDir, waitFor } from "./support/wait";

/**
 * The KEP-5683 lifecycle conditions over an event's life, in the whole relay against the fabric
 * simulator's IMDS and Kubernetes stand-in: MaintenancePlanned and DrainInProgress when the
 * event appears, Drained once drained, MaintenanceInProgress once Started, all False once the
 * event is gone. Only on the relay's own node; another writer's conditions untouched; without
 * `nodes/status patch` the drain still works and the relay says so once.
 */

const VM = `${SS}_1`;
const OURS = ["MaintenancePlanned", "DrainInProgress", "Drained", "MaintenanceInProgress"];
let sim: FabricSimulator;
let coordinator: CoordinatorStandIn;
let dir: { path: string; remove: () => Promise<void> };
let relay: RelayHandle | undefined;
let lines: { level: LogLevel; msg: string }[] = [];
beforeAll(async () => {
  sim = await startFabricSimulator({
    clock: new ManualClock(),
    topology: {
      groups: [{ kind: "scaleSetPlacementGroup", name: "pool", scaleSetName: SS, vms: 2 }],
    },
  });
  coordinator = await new CoordinatorStandIn().start();
  dir = await tempDir();
});
afterAll(async () => {
  await coordinator?.stop();
  await sim?.stop();
  await dir?.remove();
});
beforeEach(() => {
  sim.reset();
  lines = [];
});
afterEach(async () => {
  await relay?.stop();
  relay = undefined;
});

async function start(tokenFile = writeToken(sim, dir.path)): Promise<void> {
  const settings = relaySettings(sim, tokenFile, {
    QUIESCE_COORDINATOR_URL: coordinator.url,
    QUIESCE_IMDS_URL: sim.imdsUrl(VM),
    QUIESCE_POLL_INTERVAL_MS: 200,
    QUIESCE_STATE_FILE: join(dir.path, `state-${Date.now()}.json`),
  });
  relay = await startRelay(settings, {
    logger: createLogger({ level: "debug", sink: (r) => lines.push(r) }),
    reportRetry: { baseMs: 50, maxMs: 300 },
    heartbeatBoundsMs: { min: 100, max: 5_000 },
  });
}

const node = (vm = VM) => sim.kubernetes.nodeOfVm(vm);
const condition = (type: string, vm = VM) => node(vm).conditions.find((c) => c.type === type);
const shown = () =>
  node()
    .conditions.filter((c) => OURS.includes(c.type))
    .map((c) => `${c.type}=${c.status}`)
    .sort()
    .join(" ");

/** Every distinct set of our conditions on the node, in order, sampled until stopped. */
function watchConditions(): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const sample = () => {
    const now = shown();
    if (seen.at(-1) !== now) seen.push(now);
  };
  const t = setInterval(sample, 5);
  // A last sample at the stop: the state a waitFor has just seen may be newer than the last tick.
  return {
    seen,
    stop: () => {
      clearInterval(t);
      return sample();
    },
  };
}

async function admin(path: string, body: unknown): Promise<number> {
  const { token } = sim.kubernetes.issueToken({ user: "maintenance-operator" });
  const res = await fetch(`${sim.kubernetes.url}${path}`, {
    method: "PATCH",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/strategic-merge-patch+json",
    },
    body: JSON.stringify(body),
  });
  return res.status;
}

it("writes the conditions in order through an event's life and clears them, on its own node only", async () => {
  sim.kubernetes.addPods({
    // 4 s of grace, so the drain lasts longer than a conditions write retried under load: the
    // writer sends only the latest state, and a drain over before its first write lands would
    // (rightly) never show DrainInProgress=True.
    pods: [{ name: "web-0", namespace: "shop", vm: VM, terminationGracePeriodSeconds: 4 }],
  });
  await start();
  const watch = watchConditions();
  const ev = sim.schedule({ eventType: "Reboot", resources: [VM], noticeSeconds: 900 });
  await waitFor("draining", () => condition("DrainInProgress")?.status === "True", 15_000);
  await waitFor("drained", () => condition("Drained")?.status === "True", 15_000);
  const planned = condition("MaintenancePlanned");
  expect(planned).toMatchObject({ status: "True", reason: "ScheduledEvent" });
  expect(planned?.message).toBe(
    `${PREFIX}Azure scheduled event Reboot (EventId ${ev.eventId}, NotBefore ${new Date(ev.notBeforeMs ?? 0).toUTCString()}) is Scheduled`,
  );
  expect(condition("Drained")?.reason).toBe("DrainCompleted");
  sim.startNow(ev.eventId);
  await waitFor("in progress", () => condition("MaintenanceInProgress")?.status === "True");
  sim.advance(24 * 3600);
  await waitFor(
    "cleared",
    () =>
      shown()
        .split(" ")
        .every((c) => c.endsWith("=False")),
    15_000,
  );
  watch.stop();
  expect(watch.seen).toEqual([
    "",
    "DrainInProgress=True MaintenancePlanned=True",
    "DrainInProgress=False Drained=True MaintenancePlanned=True",
    "DrainInProgress=False Drained=True MaintenanceInProgress=True MaintenancePlanned=False",
    "DrainInProgress=False Drained=False MaintenanceInProgress=False MaintenancePlanned=False",
  ]);
  for (const c of node().conditions.filter((x) => OURS.includes(x.type)))
    expect(Date.parse(c.lastHeartbeatTime ?? "")).toBeGreaterThanOrEqual(
      Date.parse(c.lastTransitionTime ?? ""),
    );
  // The other node of the pool: nothing but the kubelet's Ready.
  expect(node(`${SS}_0`).conditions.map((c) => c.type)).toEqual(["Ready"]);
  // One write per step, on its node only; a 409 (the cordon changed the node meanwhile) is
  // decided again on a fresh read.
  const writes = sim.kubernetes.requests().filter((r) => r.resource === "nodes/status");
  expect(new Set(writes.map((r) => `${r.verb} ${r.name}`))).toEqual(
    new Set([`patch ${node().name}`]),
  );
  expect(writes.filter((r) => r.status === 200)).toHaveLength(4);
  expect(writes.every((r) => r.status === 200 || r.status === 409)).toBe(true);
});

it("leaves another writer's condition of our type, and other types, as they were", async () => {
  const theirs = [
    { type: "MaintenancePlanned", status: "True", reason: "AdminRequested", message: "patching" },
    { type: "VendorHealthy", status: "True", reason: "Probe", message: "ok" },
  ];
  expect(
    await admin(`/api/v1/nodes/${node().name}/status`, { status: { conditions: theirs } }),
  ).toBe(200);
  await start();
  const ev = sim.schedule({ eventType: "Reboot", resources: [VM], noticeSeconds: 900 });
  await waitFor("drained", () => condition("Drained")?.status === "True", 15_000);
  sim.advance(24 * 3600);
  expect(sim.event(ev.eventId)?.removedAt).toBeDefined();
  await waitFor("cleared", () => condition("Drained")?.status === "False", 15_000);
  expect(condition("MaintenancePlanned")).toEqual(theirs[0]);
  expect(condition("VendorHealthy")).toEqual(theirs[1]);
});

it("drains without nodes/status patch, and warns once naming what is missing", async () => {
  const rules = RELAY_RULES.filter((r) => !r.resources.includes("nodes/status")).map((r) => ({
    apiGroups: [...r.apiGroups],
    resources: [...r.resources],
    verbs: [...r.verbs],
  }));
  const denied = sim.kubernetes.issueToken({ user: "relay-without-status", rules });
  const file = join(dir.path, "denied-token");
  writeFileSync(file, denied.token);
  await start(file);
  const first = sim.schedule({ eventType: "Reboot", resources: [VM], noticeSeconds: 900 });
  await waitFor("drained", () => node().unschedulable, 15_000);
  sim.startNow(first.eventId);
  await waitFor(
    "refused twice",
    () => sim.kubernetes.requests().filter((r) => r.resource === "nodes/status").length >= 2,
  );
  const refused = sim.kubernetes.requests().filter((r) => r.resource === "nodes/status");
  expect(refused.every((r) => r.status === 403)).toBe(true);
  expect(node().conditions.map((c) => c.type)).toEqual(["Ready"]);
  const warnings = lines.filter((l) => l.level === "warn" && /node conditions/.test(l.msg));
  expect(warnings.map((w) => w.msg)).toEqual([
    "kubernetes node conditions not written: the relay's ClusterRole needs nodes/status patch (docs/aks.md); the drain goes on without them",
  ]);
  await waitFor("the drain succeeded", () => lines.some((l) => l.msg === "drain hook succeeded"));
});
