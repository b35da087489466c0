import { refused, unwrap } from "../model/controlResult";
import type { AddPodsInput, IssueTokenInput, PdbInput } from "./commands";
import {
  type KubeRequest,
  type KubernetesEngine,
  type NodeView,
  type PdbView,
  type PodView,
  RELAY_USER,
} from "./engine";

/**
 * The loopback Kubernetes API server as tests drive it in-process (the control API under
 * `/control/kubernetes` offers the same); failures throw `FabricControlError`.
 */
export interface KubernetesStandIn {
  /** The API server's base URL (the relay's QUIESCE_KUBERNETES_API_URL). */
  readonly url: string;
  /** The relay service account's bearer token (write it to the relay's token file). */
  readonly token: string;
  /** Who that token is: `system:serviceaccount:quiesce:quiesce-relay`. */
  readonly user: string;
  /** The PEM certificate it serves when started with TLS (the relay's CA file); else absent. */
  readonly caCert?: string;
  nodes(): NodeView[];
  /** The node on a fabric VM (by the VM's name, as in `Resources`). */
  nodeOfVm(vm: string): NodeView;
  addPods(input: AddPodsInput): PodView[];
  pods(): PodView[];
  addPdb(input: PdbInput): PdbView;
  pdbs(): PdbView[];
  /** An operator's `kubectl cordon` / `uncordon` (not through the API, so not in the log). */
  cordon(node: string): NodeView;
  uncordon(node: string): NodeView;
  /** Every API request with the identity that made it (`sinceSeq`: only newer ones). */
  requests(sinceSeq?: number): KubeRequest[];
  /** Another identity: cluster-admin unless `rules` say less. */
  issueToken(input: IssueTokenInput): { token: string; user: string };
}

export function kubernetesApi(
  k8s: KubernetesEngine,
  url: string,
  caCert: string | undefined,
): KubernetesStandIn {
  return {
    url,
    token: k8s.relayToken,
    user: RELAY_USER,
    ...(caCert ? { caCert } : {}),
    nodes: () => k8s.nodes(),
    nodeOfVm: (vm) => {
      const n = k8s.nodes().find((x) => x.vm.toLowerCase() === vm.toLowerCase());
      return n ?? unwrap(refused(404, `no node on VM ${vm}`));
    },
    addPods: (input) => unwrap(k8s.addPods(input)),
    pods: () => k8s.pods(),
    addPdb: (input) => unwrap(k8s.addPdb(input)),
    pdbs: () => k8s.pdbs(),
    cordon: (node) => unwrap(k8s.setUnschedulable({ node }, true)),
    uncordon: (node) => unwrap(k8s.setUnschedulable({ node }, false)),
    requests: (sinceSeq) => k8s.requests(sinceSeq),
    issueToken: (input) => unwrap(k8s.issueToken(input)),
  };
}
