import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containerEnvironment } from "../../test/kubernetes/env";
import { type KubeObject, podSpecOf, renderKustomization } from "../../test/kubernetes/kustomize";
import { EXIT, parseCliArgs } from "../src/cliArgs";
import { heartbeatFileFor, heartbeatStaleAfterMs } from "../src/heartbeat";
import { buildBundle, FileOutputProcess } from "./support/bundle";
import { CoordinatorStandIn } from "./support/coordinatorStandIn";
import { standInSettings } from "./support/harness";
import { ImdsStandIn } from "./support/imdsStandIn";
import { tempDir, waitFor } from "./support/wait";

/**
 * What supervises the relay acts on what the relay says, read from the relay's code: the
 * Windows wrapper stops restarting on the exit code of invalid settings (as the systemd unit does,
 * packaging.test.ts), and the DaemonSet's liveness probe runs a command the image's relay has,
 * which passes while the relay's loop runs and fails once its heartbeat is stale.
 */

const ROOT = resolve(__dirname, "..", "..");

describe("relay/packaging/windows/run-relay.ps1", () => {
  const wrapper = readFileSync(join(ROOT, "relay/packaging/windows/run-relay.ps1"), "utf8");

  it(`stops restarting the relay when it exits ${EXIT.config} (invalid settings), and only then`, () => {
    const loop = wrapper.slice(wrapper.indexOf("while ($true)"));
    const at = (text: string) => loop.indexOf(text);
    const check = at(`if ($code -eq ${EXIT.config}) {`);
    expect(check).toBeGreaterThan(at("$code = $LASTEXITCODE"));
    expect(at("exit $code")).toBeGreaterThan(check);
    expect(at("Start-Sleep")).toBeGreaterThan(at("exit $code"));
    expect(loop.match(/\bexit\b/g)).toHaveLength(1);
  });
});

describe("the DaemonSet's liveness probe", () => {
  const KUBE = join(ROOT, "deploy/kubernetes/overlays");
  const overlays = readdirSync(KUBE).sort();
  const dockerfile = readFileSync(join(ROOT, "relay/packaging/container/Dockerfile"), "utf8");
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? "[]") as string[];
  type Probe = {
    exec?: { command?: string[] };
    periodSeconds?: number;
    failureThreshold?: number;
    timeoutSeconds?: number;
  };
  const relayOf = (objects: KubeObject[]) => {
    const ds = objects.find((o) => o.kind === "DaemonSet") as KubeObject;
    const containers = podSpecOf(ds)?.containers as { name: string; livenessProbe?: Probe }[];
    return containers.find((c) => c.name === "relay");
  };
  const STAND_IN = {
    secret: (name: string, key: string) => `secret ${name}/${key} (stand-in)`,
    field: (path: string) =>
      path === "spec.nodeName" ? "aks-nodepool1-12345678-vmss000000" : path,
  };

  it.each(overlays)(
    "overlays/%s: runs the image's relay with --probe, failing for minutes before a restart",
    (overlay) => {
      const probe = relayOf(renderKustomization(join(KUBE, overlay)))?.livenessProbe;
      const command = probe?.exec?.command ?? [];
      expect(entrypoint).toEqual(["node", "/opt/quiesce/quiesce-relay.js"]);
      expect(command.slice(0, entrypoint.length)).toEqual(entrypoint);
      expect(parseCliArgs(command.slice(entrypoint.length))).toMatchObject({
        probe: true,
        checkConfig: false,
      });
      // Whatever the probe's own timing, the relay is killed only after its heartbeat went stale
      // (5 minutes and more); the probe must not add a hair trigger of its own.
      expect((probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3)).toBeGreaterThanOrEqual(
        120,
      );
      expect(probe?.timeoutSeconds ?? 1).toBeGreaterThanOrEqual(10);
    },
  );

  describe("run as the pod would run it", () => {
    let built: Awaited<ReturnType<typeof buildBundle>>;
    let dir: Awaited<ReturnType<typeof tempDir>>;
    beforeAll(async () => {
      built = await buildBundle();
      dir = await tempDir();
    });
    afterAll(async () => {
      await dir.remove();
      await built.remove();
    });

    it("passes while the relay's loop runs, fails once its heartbeat is stale", async () => {
      const objects = renderKustomization(join(KUBE, "entra"));
      const { env, problems } = containerEnvironment(objects, "relay", STAND_IN);
      expect(problems).toEqual([]);
      const stateFile = join(dir.path, "state.json");
      const podEnv = { ...env, QUIESCE_STATE_FILE: stateFile };
      const command = relayOf(objects)?.livenessProbe?.exec?.command ?? [];
      const runProbe = () =>
        spawnSync(process.execPath, [built.bundle, ...command.slice(entrypoint.length)], {
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "", ...podEnv },
        });

      const before = runProbe();
      expect(before.status).toBe(EXIT.failure);
      expect(before.stderr).toMatch(/no heartbeat/);

      // The relay, with the pod's state file, against stand-ins of IMDS and the coordinator.
      const imds = await new ImdsStandIn("vm-0").start();
      const coordinator = await new CoordinatorStandIn().start();
      const relay = new FileOutputProcess(
        [built.bundle],
        {
          ...standInSettings({ coordinatorUrl: coordinator.url, imdsUrl: imds.url, stateFile }),
        },
        join(dir.path, "stdout"),
        join(dir.path, "stderr"),
      );
      try {
        await waitFor("the relay's IMDS polls", () => imds.eventRequests().length >= 2);
        const alive = runProbe();
        expect(alive.stdout).toMatch(/^quiesce-relay: alive: heartbeat \d+ s old\n$/);
        expect(alive.status).toBe(EXIT.ok);
      } finally {
        expect(await relay.stop()).toBe(EXIT.ok);
        await imds.stop();
        await coordinator.stop();
      }

      // As long after the loop stopped as the limit, and a minute more.
      const heartbeat = heartbeatFileFor(stateFile);
      const stale = new Date(statSync(heartbeat).mtimeMs - heartbeatStaleAfterMs(1000) - 60_000);
      utimesSync(heartbeat, stale, stale);
      const after = runProbe();
      expect(after.status).toBe(EXIT.failure);
      expect(after.stderr).toMatch(/not alive: heartbeat .* s old \(limit \d+ s\)/);
    });
  });
});
