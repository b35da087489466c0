import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { type FabricSimulator, startFabricSimulator } from "@quiesce/fabric-simulator";
import { build } from "esbuild";
import { afterAll, beforeAll, expect, it } from "vitest";
import { relayBuildOptions } from "../scripts/build-options.mjs";
import { CoordinatorStandIn } from "./support/coordinatorStandIn";
import { SS, writeToken } from "./support/kubernetes";
import { tempDir, waitFor } from "./support/wait";

/**
 * The built-in Kubernetes drain in the relay as shipped (the single-file bundle, where
 * @kubernetes/client-node is embedded compressed and compiled on first use), against the fabric
 * simulator's IMDS and Kubernetes stand-in: the node is cordoned and its pod evicted.
 */

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: FabricSimulator;
let coordinator: CoordinatorStandIn;
let child: ChildProcess | undefined;
beforeAll(async () => {
  dir = await tempDir();
  sim = await startFabricSimulator({
    topology: {
      groups: [{ kind: "scaleSetPlacementGroup", name: "pool", scaleSetName: SS, vms: 2 }],
    },
  });
  coordinator = await new CoordinatorStandIn().start();
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGKILL");
    await new Promise((r) => child?.once("exit", r));
  }
  await coordinator?.stop();
  await sim?.stop();
  await dir?.remove();
});

it("cordons and drains its node from the bundle", async () => {
  const bundle = join(dir.path, "quiesce-relay.js");
  await build({ ...relayBuildOptions({ outfile: bundle }), logLevel: "error" });
  const vm = `${SS}_1`;
  sim.kubernetes.addPods({
    pods: [
      {
        name: "web-0",
        namespace: "shop",
        vm,
        owner: { kind: "ReplicaSet", name: "web" },
        terminationGracePeriodSeconds: 1,
      },
    ],
  });
  child = spawn(process.execPath, [bundle], {
    env: {
      PATH: process.env.PATH ?? "",
      QUIESCE_COORDINATOR_URL: coordinator.url,
      QUIESCE_CLUSTER: "test",
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: "test-relay-key-0123456789",
      QUIESCE_IMDS_URL: sim.imdsUrl(vm),
      QUIESCE_STATE_FILE: join(dir.path, "state.json"),
      QUIESCE_KUBERNETES_DRAIN: "true",
      QUIESCE_KUBERNETES_API_URL: sim.kubernetes.url,
      QUIESCE_KUBERNETES_TOKEN_FILE: writeToken(sim, dir.path),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitFor("a report", () => coordinator.reports.length > 0, 15_000);
  const ev = sim.schedule({ eventType: "Reboot", resources: [vm], noticeSeconds: 300 });
  const drain = await waitFor(
    "the drain reported",
    () =>
      coordinator
        .last()
        ?.hooks?.find((h) => h.eventId === ev.eventId && h.drain?.status === "succeeded")?.drain,
    20_000,
    50,
  );
  expect(drain.detail).toMatch(new RegExp(`^node ${SS}000001 drained: 1 pod\\(s\\) evicted`));
  expect(sim.kubernetes.nodeOfVm(vm).unschedulable).toBe(true);
  expect(sim.kubernetes.nodeOfVm(`${SS}_0`).unschedulable).toBe(false);
  // Its ReplicaSet brings it back on the node still schedulable.
  await waitFor(
    "web re-created elsewhere",
    () => sim.kubernetes.pods().find((p) => p.name.startsWith("web"))?.node === `${SS}000000`,
    10_000,
  );
});
