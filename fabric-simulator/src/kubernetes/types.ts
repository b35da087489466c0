/**
 * The loopback Kubernetes API server's world: the nodes of the fabric's scale sets, the pods the
 * test placed (and the ones controllers re-created), PodDisruptionBudgets. Pure data; times are
 * real epoch ms (a kubelet's grace period is wall-clock time, whatever the fabric's time scale).
 */

export type Labels = Readonly<Record<string, string>>;

export interface KubeNode {
  /** The VM's computer name, as the kubelet registers it (lower case). */
  readonly name: string;
  /** The fabric VM under it (IMDS `compute.name`): the name in `Resources`. */
  readonly vm: string;
  /** `azure://` + the VM's ARM id, as cloud-provider-azure sets it. */
  readonly providerID: string;
  readonly uid: string;
  readonly createdMs: number;
  readonly unschedulable: boolean;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly resourceVersion: number;
  /**
   * `status.conditions` written through `nodes/{name}/status` (the KEP-5683 lifecycle
   * conditions, or any other writer's), after the kubelet's Ready, which the stand-in keeps.
   */
  readonly conditions?: readonly KubeNodeCondition[];
}

/** core/v1 NodeCondition as written; times RFC 3339 strings, kept as sent. */
export interface KubeNodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastHeartbeatTime?: string;
  readonly lastTransitionTime?: string;
}

/** A pod's controller, as `metadata.ownerReferences[controller=true]` names it. */
export interface PodOwner {
  readonly kind: string;
  readonly name: string;
}

export interface PodDeletion {
  /** `metadata.deletionTimestamp`: when the grace period ends. */
  readonly deadlineMs: number;
  readonly graceSeconds: number;
  /** When the pod is really gone: its app may stop before the grace period ends. */
  readonly goneMs: number;
}

export interface KubePod {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly nodeName: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly owner?: PodOwner;
  readonly terminationGracePeriodSeconds: number;
  /** How long the app takes to stop after SIGTERM; the whole grace period when absent. */
  readonly shutdownSeconds?: number;
  readonly phase: "Running" | "Succeeded" | "Failed";
  readonly createdMs: number;
  readonly resourceVersion: number;
  readonly deletion?: PodDeletion;
}

/** policy/v1 PodDisruptionBudget, with integer budgets and a matchLabels selector. */
export interface KubePdb {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly matchLabels: Labels;
  readonly minAvailable?: number;
  readonly maxUnavailable?: number;
}

/** A pod its controller will create again on a schedulable node once `dueMs` has passed. */
export interface PendingPod {
  readonly template: Omit<
    KubePod,
    "uid" | "nodeName" | "createdMs" | "resourceVersion" | "deletion"
  >;
  readonly dueMs: number;
  readonly previousNode: string;
}

export interface KubeWorld {
  /** The fabric generation this world belongs to (a fabric reset starts a fresh one). */
  readonly generation: number;
  readonly nodes: Readonly<Record<string, KubeNode>>;
  readonly pods: readonly KubePod[];
  readonly pdbs: readonly KubePdb[];
  readonly pending: readonly PendingPod[];
  /** The cluster's resourceVersion counter: every write takes the next one. */
  readonly resourceVersion: number;
  /** Real ms a controller waits after a pod is gone before creating its replacement. */
  readonly recreateAfterMs: number;
  /** Counter for the names and uids of what the world creates. */
  readonly created: number;
}

/** The answer of one API request: status and JSON body (a Status on errors). */
export interface KubeAnswer {
  readonly status: number;
  readonly body: unknown;
}
