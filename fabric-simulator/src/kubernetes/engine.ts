import { randomBytes } from "node:crypto";
import type { FabricEngine } from "../engine/engine";
import { type ControlResult, parseCommand, refused } from "../model/controlResult";
import { stableUuid } from "../topology/stableId";
import { AddPods, IssueToken, NodeAction, PdbInput } from "./commands";
import { type BudgetView, budget } from "./disruption";
import { findNodeOfVm, syncNodes } from "./nodes";
import { advancePods, isAlive, MIRROR_ANNOTATION } from "./pods";
import { CLUSTER_ADMIN_RULES, type PolicyRule, RELAY_RULES } from "./rbac";
import { nodeConditions } from "./render";
import type { KubeNodeCondition, KubePdb, KubePod, KubeWorld } from "./types";

/** The request log keeps the newest this many requests. */
const MAX_LOGGED = 10_000;

/** The relay's service account, as the DaemonSet runs it (the namespace is the stand-in's choice). */
export const RELAY_USER = "system:serviceaccount:quiesce:quiesce-relay";

export interface KubeIdentity {
  readonly user: string;
  readonly rules: readonly PolicyRule[];
}

/** One API request as the log keeps it: who did what, and the answer. */
export interface KubeRequest {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly verb: string;
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The authenticated user; null when the request carried no token the stand-in issued. */
  readonly user: string | null;
  readonly status: number;
  readonly realMs: number;
}

export interface NodeView {
  readonly name: string;
  readonly vm: string;
  readonly providerID: string;
  readonly unschedulable: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** `status.conditions`: the kubelet's Ready, then what was written through nodes/status. */
  readonly conditions: readonly KubeNodeCondition[];
  /** Pods bound to it and not yet gone (terminating ones included). */
  readonly pods: number;
}

export interface PodView {
  readonly name: string;
  readonly namespace: string;
  readonly node: string;
  readonly phase: KubePod["phase"];
  readonly owner?: KubePod["owner"];
  readonly labels: Readonly<Record<string, string>>;
  readonly terminating: boolean;
  readonly terminationGracePeriodSeconds: number;
  /** The grace period of its deletion, when deleted. */
  readonly deletionGracePeriodSeconds?: number;
}

export type PdbView = KubePdb & BudgetView;

/**
 * The imperative shell of the Kubernetes stand-in: holds the world of the fabric's current
 * generation (a fabric reset starts a fresh one), lets it catch up with the wall clock before
 * every read and write, parses control inputs, keeps the request log and the tokens (which
 * outlive resets, like the ARM identities).
 */
export class KubernetesEngine {
  private current: KubeWorld;
  private log: KubeRequest[] = [];
  private nextSeq = 1;
  private readonly tokens = new Map<string, KubeIdentity>();
  /** The relay service account's bearer token (what the DaemonSet's pods would mount). */
  readonly relayToken = randomBytes(24).toString("base64url");

  constructor(
    readonly fabric: FabricEngine,
    private readonly recreateAfterMs: number,
    readonly now: () => number = Date.now,
  ) {
    this.tokens.set(this.relayToken, { user: RELAY_USER, rules: RELAY_RULES });
    this.current = this.fresh();
  }

  private fresh(): KubeWorld {
    const empty: KubeWorld = {
      generation: this.fabric.generation,
      nodes: {},
      pods: [],
      pdbs: [],
      pending: [],
      resourceVersion: 1,
      recreateAfterMs: this.recreateAfterMs,
      created: 0,
    };
    return syncNodes(empty, this.fabric.state(), this.now());
  }

  /** The world now: nodes follow the fabric, pods finish terminating, controllers re-create. */
  world(): KubeWorld {
    if (this.current.generation !== this.fabric.generation) {
      this.current = this.fresh();
      this.log = [];
      this.nextSeq = 1;
    }
    const now = this.now();
    this.current = advancePods(syncNodes(this.current, this.fabric.state(), now), now);
    return this.current;
  }

  set(next: KubeWorld): void {
    this.current = next;
  }

  identity(token: string): KubeIdentity | undefined {
    return this.tokens.get(token);
  }

  issueToken(input: unknown): ControlResult<{ token: string; user: string }> {
    const p = parseCommand(IssueToken, input);
    if (!p.ok) return p;
    const token = randomBytes(24).toString("base64url");
    this.tokens.set(token, { user: p.value.user, rules: p.value.rules ?? CLUSTER_ADMIN_RULES });
    return { ok: true, value: { token, user: p.value.user } };
  }

  record(entry: Omit<KubeRequest, "seq" | "realMs">): void {
    this.world();
    this.log.push({ seq: this.nextSeq++, ...entry, realMs: this.now() });
    if (this.log.length > MAX_LOGGED) this.log.splice(0, this.log.length - MAX_LOGGED);
  }

  requests(sinceSeq = 0): KubeRequest[] {
    this.world();
    return this.log.filter((r) => r.seq > sinceSeq);
  }

  // Controls.

  addPods(input: unknown): ControlResult<PodView[]> {
    const p = parseCommand(AddPods, input);
    if (!p.ok) return p;
    let w = this.world();
    const now = this.now();
    const added: KubePod[] = [];
    for (const spec of p.value.pods) {
      const node = spec.node ? w.nodes[spec.node] : spec.vm ? findNodeOfVm(w, spec.vm) : undefined;
      if (!node) return refused(404, `no node ${spec.node ?? `on VM ${spec.vm}`}`);
      if (
        w.pods.some(
          (x) => x.namespace === spec.namespace && x.name === spec.name && isAlive(x, now),
        )
      )
        return refused(409, `pod ${spec.namespace}/${spec.name} exists`);
      const rv = w.resourceVersion + 1;
      const created = w.created + 1;
      const pod: KubePod = {
        uid: stableUuid("pod", String(w.generation), String(created)),
        name: spec.name,
        namespace: spec.namespace,
        nodeName: node.name,
        labels: spec.labels,
        annotations: spec.mirror ? { [MIRROR_ANNOTATION]: stableUuid("mirror", spec.name) } : {},
        ...(spec.mirror
          ? { owner: { kind: "Node", name: node.name } }
          : spec.owner
            ? { owner: spec.owner }
            : {}),
        terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds,
        ...(spec.shutdownSeconds !== undefined ? { shutdownSeconds: spec.shutdownSeconds } : {}),
        phase: spec.phase,
        createdMs: now,
        resourceVersion: rv,
      };
      added.push(pod);
      w = { ...w, pods: [...w.pods, pod], resourceVersion: rv, created };
    }
    this.set(w);
    return { ok: true, value: added.map(podView) };
  }

  addPdb(input: unknown): ControlResult<PdbView> {
    const p = parseCommand(PdbInput, input);
    if (!p.ok) return p;
    const w = this.world();
    if (w.pdbs.some((b) => b.namespace === p.value.namespace && b.name === p.value.name))
      return refused(409, `PodDisruptionBudget ${p.value.namespace}/${p.value.name} exists`);
    const pdb: KubePdb = { uid: stableUuid("pdb", p.value.namespace, p.value.name), ...p.value };
    const next = { ...w, pdbs: [...w.pdbs, pdb] };
    this.set(next);
    return { ok: true, value: { ...pdb, ...budget(next, pdb, this.now()) } };
  }

  /** An operator's cordon or uncordon, not through the API (so the relay's log stays its own). */
  setUnschedulable(input: unknown, unschedulable: boolean): ControlResult<NodeView> {
    const p = parseCommand(NodeAction, input);
    if (!p.ok) return p;
    const w = this.world();
    const node = w.nodes[p.value.node];
    if (!node) return refused(404, `no node ${p.value.node}`);
    const rv = w.resourceVersion + 1;
    const next = { ...node, unschedulable, resourceVersion: rv };
    this.set({ ...w, resourceVersion: rv, nodes: { ...w.nodes, [node.name]: next } });
    return { ok: true, value: this.nodes().find((n) => n.name === node.name) as NodeView };
  }

  nodes(): NodeView[] {
    const w = this.world();
    const now = this.now();
    return Object.values(w.nodes)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((n) => ({
        name: n.name,
        vm: n.vm,
        providerID: n.providerID,
        unschedulable: n.unschedulable,
        labels: n.labels,
        annotations: n.annotations,
        conditions: nodeConditions(n),
        pods: w.pods.filter((p) => p.nodeName === n.name && isAlive(p, now)).length,
      }));
  }

  pods(): PodView[] {
    const w = this.world();
    return w.pods.map(podView);
  }

  pdbs(): PdbView[] {
    const w = this.world();
    return w.pdbs.map((b) => ({ ...b, ...budget(w, b, this.now()) }));
  }
}

function podView(p: KubePod): PodView {
  return {
    name: p.name,
    namespace: p.namespace,
    node: p.nodeName,
    phase: p.phase,
    ...(p.owner ? { owner: p.owner } : {}),
    labels: p.labels,
    terminating: p.deletion !== undefined,
    terminationGracePeriodSeconds: p.terminationGracePeriodSeconds,
    ...(p.deletion ? { deletionGracePeriodSeconds: p.deletion.graceSeconds } : {}),
  };
}
