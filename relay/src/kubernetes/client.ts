import type { NodeStatusPatch } from "./conditions";
import type { EvictionAnswer } from "./evictions";
import type { NodePatch } from "./marks";
import { type NodeInfo, nodeInfo, type PodInfo, podInfo, type Refusal, refusal } from "./objects";
import { tokenFileSource } from "./token";

/**
 * The Kubernetes calls the drain makes, through the official @kubernetes/client-node with the
 * pod's service account. Loaded lazily: the client and its dependencies are large, and a relay
 * that does not drain Kubernetes (a plain VM) never pays for them in memory.
 */

export interface KubernetesConnection {
  /** https://…, or http:// to a loopback stand-in. */
  readonly apiUrl: string;
  readonly tokenFile: string;
  readonly caFile: string;
}

export interface KubernetesApi {
  /** Every node (paged): the API cannot select nodes by spec.providerID. */
  listNodes(): Promise<NodeInfo[]>;
  readNode(name: string): Promise<NodeInfo>;
  /** A JSON merge patch; throws KubeRefused (409 when its resourceVersion is stale). */
  patchNode(name: string, patch: NodePatch): Promise<NodeInfo>;
  /** A strategic merge patch of the status subresource (the lifecycle conditions). */
  patchNodeStatus(name: string, patch: NodeStatusPatch): Promise<NodeInfo>;
  /** The pods bound to the node, in every namespace. */
  podsOnNode(name: string): Promise<PodInfo[]>;
  evict(pod: PodInfo, graceSeconds: number): Promise<EvictionAnswer>;
}

/** The API server answered with an error Status. */
export class KubeRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(`${refusal.code} ${refusal.reason}: ${refusal.message}`);
    this.name = "KubeRefused";
  }
}

/** No answer in time: a hung connection must not hold the drain past its deadline. */
const CALL_TIMEOUT_MS = 10_000;
const PAGE = 500;

function timed<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer in ${CALL_TIMEOUT_MS / 1000} s`)),
      CALL_TIMEOUT_MS,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** client-node's ApiException carries the HTTP code and the body; anything else is rethrown. */
function asRefusal(e: unknown): KubeRefused | undefined {
  if (typeof e !== "object" || e === null || !("code" in e)) return undefined;
  const code = (e as { code: unknown }).code;
  if (typeof code !== "number" || code < 400) return undefined;
  return new KubeRefused(refusal(code, (e as { body?: unknown }).body));
}

async function callOnce<T>(what: string, f: () => Promise<T>, onRefused: () => void): Promise<T> {
  try {
    return await timed(f(), what);
  } catch (e) {
    const refused = asRefusal(e);
    if (refused?.refusal.code === 401) onRefused();
    throw refused ?? e;
  }
}

/** The user entry our authenticator answers for (not client-node's tokenFile: it does not trim). */
const TOKEN_FILE_PROVIDER = "quiesce-token-file";

export async function connectKubernetes(c: KubernetesConnection): Promise<KubernetesApi> {
  const k8s = await import("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
  const tokens = tokenFileSource(c.tokenFile);
  kc.addAuthenticator({
    isAuthProvider: (user) => user.authProvider?.name === TOKEN_FILE_PROVIDER,
    async applyAuthentication(_user, opts) {
      opts.headers = { ...opts.headers, Authorization: `Bearer ${await tokens.token()}` };
    },
  });
  // A 401 may be a token rotated since it was read: read the file again, as client-go does.
  const call = <T>(what: string, f: () => Promise<T>) => callOnce(what, f, tokens.refused);
  const https = new URL(c.apiUrl).protocol === "https:";
  kc.loadFromOptions({
    clusters: [
      // Plain HTTP has no certificate to verify: the settings allow it to a loopback address only
      // (a stand-in), and client-node refuses http:// unless told there is nothing to verify.
      https
        ? { name: "cluster", server: c.apiUrl, skipTLSVerify: false, caFile: c.caFile }
        : { name: "cluster", server: c.apiUrl, skipTLSVerify: true },
    ],
    // The kubelet rotates a projected token: ./token.ts reads it (trimmed) every minute.
    users: [{ name: "relay", authProvider: { name: TOKEN_FILE_PROVIDER, config: {} } }],
    contexts: [{ name: "relay", cluster: "cluster", user: "relay" }],
    currentContext: "relay",
  });
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
  // Strategic: NodeStatus.conditions merges by `type`, so one type is written, the rest kept.
  const strategic = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch);
  return {
    async listNodes() {
      const out: NodeInfo[] = [];
      let next: string | undefined;
      do {
        const page = await call("list nodes", () =>
          core.listNode({ limit: PAGE, ...(next ? { _continue: next } : {}) }),
        );
        out.push(...page.items.map(nodeInfo));
        next = page.metadata?._continue || undefined;
      } while (next);
      return out;
    },
    readNode: async (name) => nodeInfo(await call("read node", () => core.readNode({ name }))),
    patchNode: async (name, patch) =>
      nodeInfo(await call("patch node", () => core.patchNode({ name, body: patch }, mergePatch))),
    patchNodeStatus: async (name, patch) =>
      nodeInfo(
        await call("patch node status", () =>
          core.patchNodeStatus({ name, body: patch }, strategic),
        ),
      ),
    async podsOnNode(name) {
      const out: PodInfo[] = [];
      let next: string | undefined;
      do {
        const page = await call("list pods", () =>
          core.listPodForAllNamespaces({
            fieldSelector: `spec.nodeName=${name}`,
            limit: PAGE,
            ...(next ? { _continue: next } : {}),
          }),
        );
        out.push(...page.items.map(podInfo));
        next = page.metadata?._continue || undefined;
      } while (next);
      return out;
    },
    async evict(pod, graceSeconds) {
      try {
        await call("evict", () =>
          core.createNamespacedPodEviction({
            name: pod.name,
            namespace: pod.namespace,
            body: {
              apiVersion: "policy/v1",
              kind: "Eviction",
              metadata: { name: pod.name, namespace: pod.namespace },
              deleteOptions: { gracePeriodSeconds: graceSeconds },
            },
          }),
        );
        return { kind: "evicted", graceSeconds };
      } catch (e) {
        if (e instanceof KubeRefused && e.refusal.code === 404) return { kind: "gone" };
        if (e instanceof KubeRefused) return { kind: "refused", refusal: e.refusal };
        // No answer (network, timeout): treated like a refusal, tried again after a backoff.
        return {
          kind: "refused",
          refusal: {
            code: 0,
            reason: "Unreachable",
            message: e instanceof Error ? e.message : String(e),
          },
        };
      }
    },
  };
}
