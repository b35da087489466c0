import type { KubeNode, KubeNodeCondition, KubePod, KubeWorld } from "./types";

/**
 * The v1 objects as the API server serves them (JSON, RFC 3339 times in whole seconds), for the
 * fields the stand-in models. List items carry no kind/apiVersion, as in a real list.
 */

export const rfc3339 = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** The kubelet's condition, always there and not writable through the stand-in. */
export const READY: KubeNodeCondition = { type: "Ready", status: "True", reason: "KubeletReady" };

export const nodeConditions = (n: KubeNode): KubeNodeCondition[] => [
  READY,
  ...(n.conditions ?? []),
];

export function renderNode(n: KubeNode, withType = true): Record<string, unknown> {
  return {
    ...(withType ? { kind: "Node", apiVersion: "v1" } : {}),
    metadata: {
      name: n.name,
      uid: n.uid,
      resourceVersion: String(n.resourceVersion),
      creationTimestamp: rfc3339(n.createdMs),
      labels: { ...n.labels },
      annotations: { ...n.annotations },
    },
    spec: { providerID: n.providerID, ...(n.unschedulable ? { unschedulable: true } : {}) },
    status: {
      conditions: nodeConditions(n).map((c) => ({ ...c })),
      // Every field NodeSystemInfo requires (test/contracts/kubernetes.test.ts holds it to the schema).
      nodeInfo: {
        machineID: n.uid.replaceAll("-", ""),
        systemUUID: n.uid,
        bootID: n.uid,
        kernelVersion: "5.15.0-1079-azure",
        osImage: "Ubuntu 22.04.5 LTS",
        containerRuntimeVersion: "containerd://1.7.27-1",
        kubeletVersion: "v1.31.0",
        kubeProxyVersion: "",
        operatingSystem: "linux",
        architecture: "amd64",
      },
    },
  };
}

const controllerApiVersion = (kind: string) =>
  ["ReplicaSet", "StatefulSet", "DaemonSet", "Deployment"].includes(kind)
    ? "apps/v1"
    : kind === "Job"
      ? "batch/v1"
      : "v1";

export function renderPod(p: KubePod, world: KubeWorld, withType = true): Record<string, unknown> {
  const owner = p.owner;
  const ownerUid = owner
    ? owner.kind === "Node"
      ? world.nodes[owner.name]?.uid
      : `${owner.kind}/${p.namespace}/${owner.name}`
    : undefined;
  return {
    ...(withType ? { kind: "Pod", apiVersion: "v1" } : {}),
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid: p.uid,
      resourceVersion: String(p.resourceVersion),
      creationTimestamp: rfc3339(p.createdMs),
      labels: { ...p.labels },
      annotations: { ...p.annotations },
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: controllerApiVersion(owner.kind),
                kind: owner.kind,
                name: owner.name,
                uid: ownerUid ?? owner.name,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
      ...(p.deletion
        ? {
            deletionTimestamp: rfc3339(p.deletion.deadlineMs),
            deletionGracePeriodSeconds: p.deletion.graceSeconds,
          }
        : {}),
    },
    spec: {
      nodeName: p.nodeName,
      terminationGracePeriodSeconds: p.terminationGracePeriodSeconds,
      containers: [{ name: "app", image: "mcr.microsoft.com/azurelinux/base/nginx:1" }],
    },
    status: {
      phase: p.phase,
      conditions: [
        { type: "Ready", status: p.phase === "Running" && !p.deletion ? "True" : "False" },
      ],
    },
  };
}

export function renderList(
  kind: "NodeList" | "PodList",
  world: KubeWorld,
  items: unknown[],
  next?: string,
): Record<string, unknown> {
  return {
    kind,
    apiVersion: "v1",
    metadata: {
      resourceVersion: String(world.resourceVersion),
      ...(next ? { continue: next } : {}),
    },
    items,
  };
}
