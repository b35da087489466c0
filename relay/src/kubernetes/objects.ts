import { z } from "zod";
import { type NodeCondition, rfc3339 } from "./conditions";

/**
 * The parts of Kubernetes objects the drain reads, parsed with zod from what the client hands
 * back (its model classes, with Date timestamps) or from a Status error body, into plain data.
 */

const StringMap = z.record(z.string(), z.string()).nullish();
const Time = z.union([z.date(), z.string()]).nullish();

const Node = z.looseObject({
  metadata: z.looseObject({
    name: z.string().min(1),
    resourceVersion: z.string().nullish(),
    labels: StringMap,
    annotations: StringMap,
  }),
  spec: z
    .looseObject({ providerID: z.string().nullish(), unschedulable: z.boolean().nullish() })
    .nullish(),
  status: z
    .looseObject({
      conditions: z
        .array(
          z.looseObject({
            type: z.string(),
            status: z.string(),
            reason: z.string().nullish(),
            message: z.string().nullish(),
            lastHeartbeatTime: Time,
            lastTransitionTime: Time,
          }),
        )
        .nullish(),
    })
    .nullish(),
});

export interface NodeInfo {
  readonly name: string;
  readonly resourceVersion?: string;
  readonly providerID?: string;
  readonly unschedulable: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** `status.conditions`, when it has any (the lifecycle conditions are decided from them). */
  readonly conditions?: readonly NodeCondition[];
}

/** A time as the API server writes it (client-node hands back a Date). */
const apiTime = (t: Date | string) => (t instanceof Date ? rfc3339(t.getTime()) : t);

export function nodeInfo(raw: unknown): NodeInfo {
  const n = Node.parse(raw);
  return {
    name: n.metadata.name,
    ...(n.metadata.resourceVersion ? { resourceVersion: n.metadata.resourceVersion } : {}),
    ...(n.spec?.providerID ? { providerID: n.spec.providerID } : {}),
    unschedulable: n.spec?.unschedulable ?? false,
    labels: n.metadata.labels ?? {},
    annotations: n.metadata.annotations ?? {},
    ...(n.status?.conditions?.length
      ? {
          conditions: n.status.conditions.map((c) => ({
            type: c.type,
            status: c.status,
            ...(c.reason ? { reason: c.reason } : {}),
            ...(c.message ? { message: c.message } : {}),
            ...(c.lastHeartbeatTime ? { lastHeartbeatTime: apiTime(c.lastHeartbeatTime) } : {}),
            ...(c.lastTransitionTime ? { lastTransitionTime: apiTime(c.lastTransitionTime) } : {}),
          })),
        }
      : {}),
  };
}

const Pod = z.looseObject({
  metadata: z.looseObject({
    name: z.string().min(1),
    namespace: z.string().min(1),
    uid: z.string().nullish(),
    annotations: StringMap,
    ownerReferences: z
      .array(
        z.looseObject({ kind: z.string(), name: z.string(), controller: z.boolean().nullish() }),
      )
      .nullish(),
    deletionTimestamp: Time,
  }),
  spec: z.looseObject({ terminationGracePeriodSeconds: z.number().nullish() }).nullish(),
  status: z.looseObject({ phase: z.string().nullish() }).nullish(),
});

export interface PodInfo {
  readonly namespace: string;
  readonly name: string;
  /** Tells a pod from a namesake re-created after it (a StatefulSet's). */
  readonly uid: string;
  /** The kind of its controller (`ReplicaSet`, `DaemonSet`, `Node` for a mirror pod…). */
  readonly controllerKind?: string;
  readonly annotations: Readonly<Record<string, string>>;
  /** `metadata.deletionTimestamp`: it is terminating, gone by then at the latest. */
  readonly deletionMs?: number;
  readonly terminationGracePeriodSeconds?: number;
  readonly phase?: string;
}

const ms = (t: Date | string) => (t instanceof Date ? t.getTime() : Date.parse(t));

export function podInfo(raw: unknown): PodInfo {
  const p = Pod.parse(raw);
  const owner = p.metadata.ownerReferences?.find((o) => o.controller) ?? undefined;
  const grace = p.spec?.terminationGracePeriodSeconds;
  return {
    namespace: p.metadata.namespace,
    name: p.metadata.name,
    uid: p.metadata.uid ?? `${p.metadata.namespace}/${p.metadata.name}`,
    ...(owner ? { controllerKind: owner.kind } : {}),
    annotations: p.metadata.annotations ?? {},
    ...(p.metadata.deletionTimestamp ? { deletionMs: ms(p.metadata.deletionTimestamp) } : {}),
    ...(grace !== undefined && grace !== null ? { terminationGracePeriodSeconds: grace } : {}),
    ...(p.status?.phase ? { phase: p.status.phase } : {}),
  };
}

const Status = z.looseObject({
  reason: z.string().nullish(),
  message: z.string().nullish(),
  details: z
    .looseObject({ causes: z.array(z.looseObject({ message: z.string().nullish() })).nullish() })
    .nullish(),
});

/** A refusal as the API server words it (`metav1.Status`), or what is known of it. */
export interface Refusal {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
}

/** Reads a Status body (text or parsed JSON); the code alone when it is not one. */
export function refusal(code: number, body: unknown): Refusal {
  let json = body;
  if (typeof body === "string") {
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
  }
  const s = Status.safeParse(json);
  if (!s.success) return { code, reason: `HTTP ${code}`, message: `HTTP ${code}` };
  const causes = (s.data.details?.causes ?? []).map((c) => c.message).filter((m) => !!m);
  const message = [s.data.message ?? `HTTP ${code}`, ...causes].join(" ");
  return { code, reason: s.data.reason ?? `HTTP ${code}`, message };
}
