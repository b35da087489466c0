import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FabricSimulator } from "@quiesce/fabric-simulator";
import { systemClock } from "@quiesce/protocol";
import { parseRelaySettings } from "../../src/config";
import type { HookOutcome } from "../../src/hooks/outcome";
import type { HookPayload } from "../../src/hooks/payload";
import type { HookRunner } from "../../src/hooks/runner";
import { kubernetesHooks } from "../../src/kubernetes/hook";
import { silentLogger } from "../../src/log";
import { relayConfigFrom } from "../../src/options";

/**
 * What the built-in Kubernetes drain's tests share: relay settings aimed at a simulator's
 * Kubernetes stand-in (its token written to a file, as a pod would mount it), a hook payload for
 * one of its VMs, a recording stand-in for the configured drain/recover hook, a workload to place.
 */

export const SS = "aks-nodepool1-12345678-vmss";

export function writeToken(sim: FabricSimulator, dir: string, name = "token"): string {
  const file = join(dir, name);
  writeFileSync(file, sim.kubernetes.token);
  return file;
}

export const relaySettings = (
  sim: FabricSimulator,
  tokenFile: string,
  extra: Record<string, unknown> = {},
) =>
  parseRelaySettings({
    QUIESCE_COORDINATOR_URL: "http://127.0.0.1:9",
    QUIESCE_CLUSTER: "k8s",
    QUIESCE_AUTH_MODE: "sharedKey",
    QUIESCE_RELAY_KEY: "test-relay-key-0123456789",
    QUIESCE_KUBERNETES_DRAIN: true,
    QUIESCE_KUBERNETES_API_URL: sim.kubernetes.url,
    QUIESCE_KUBERNETES_TOKEN_FILE: tokenFile,
    ...extra,
  });

/** The configured hook the built-in drain runs around: records which ran, and succeeds. */
export class RecordingHook {
  calls: string[] = [];
  readonly runner: HookRunner = async (p): Promise<HookOutcome> => {
    this.calls.push(p.hook);
    return { result: "succeeded", detail: `no ${p.hook} hook configured`, output: "" };
  };
}

export function kubernetesRunner(
  sim: FabricSimulator,
  tokenFile: string,
  base: RecordingHook,
  extra: Record<string, unknown> = {},
): HookRunner {
  return kubernetesHooks(
    relayConfigFrom(relaySettings(sim, tokenFile, extra)).kubernetes,
    base.runner,
    {
      log: silentLogger,
      clock: systemClock,
      pollMs: 50,
    },
  );
}

export function payload(
  sim: FabricSimulator,
  vm: string,
  hook: "drain" | "recover",
  eventId = "E1",
): HookPayload {
  const r = sim.state().vms[vm];
  if (!r) throw new Error(`no VM ${vm}`);
  return {
    hook,
    attempt: 1,
    deadline: new Date().toISOString(),
    dryRun: false,
    vm: { name: r.name, vmId: r.vmId, resourceId: r.resourceId },
    event: {
      EventId: eventId,
      EventType: "Reboot",
      Resources: [vm],
      EventStatus: "Scheduled",
      NotBefore: "",
    },
  };
}

export const run = (
  h: HookRunner,
  p: HookPayload,
  timeoutMs = 20_000,
  signal = new AbortController().signal,
) => h(p, timeoutMs, signal);

/** `n` pods of one ReplicaSet on the VM's node, and a DaemonSet pod and a mirror pod beside them. */
export function placeWorkload(sim: FabricSimulator, vm: string, n: number, grace = 1): void {
  sim.kubernetes.addPods({
    pods: [
      ...Array.from({ length: n }, (_, i) => ({
        name: `web-${i}`,
        namespace: "shop",
        vm,
        labels: { app: "web" },
        owner: { kind: "ReplicaSet", name: "web-7c9d" },
        terminationGracePeriodSeconds: grace,
      })),
      {
        name: "kube-proxy-x",
        namespace: "kube-system",
        vm,
        owner: { kind: "DaemonSet", name: "kube-proxy" },
      },
      { name: `etcd-${vm.replace("_", "-")}`, namespace: "kube-system", vm, mirror: true },
    ],
  });
}
