import { z } from "zod";

/** The control inputs of the Kubernetes stand-in, checked at the edge like the fabric's. */

/** RFC 1123 names (pods, namespaces, PDBs), as Kubernetes validates them. */
const Dns1123 = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, "must be a lower-case RFC 1123 name");
const LabelMap = z.record(z.string().min(1).max(317), z.string().max(63));

export const PodInput = z
  .strictObject({
    name: Dns1123,
    namespace: Dns1123.default("default"),
    /** The node it is bound to (`spec.nodeName`), or the fabric VM under that node. */
    node: z.string().min(1).optional(),
    vm: z.string().min(1).optional(),
    labels: LabelMap.default({}),
    /** Its controller: ReplicaSet, StatefulSet, Job… are re-created elsewhere; DaemonSet is not. */
    owner: z.strictObject({ kind: z.string().min(1), name: Dns1123 }).optional(),
    /** A static pod's mirror: annotation `kubernetes.io/config.mirror`, owned by its Node. */
    mirror: z.boolean().default(false),
    terminationGracePeriodSeconds: z.number().int().min(0).max(86_400).default(30),
    /** How long the app takes to stop after SIGTERM (the whole grace period when absent). */
    shutdownSeconds: z.number().min(0).max(86_400).optional(),
    phase: z.enum(["Running", "Succeeded", "Failed"]).default("Running"),
  })
  .refine((p) => (p.node === undefined) !== (p.vm === undefined), {
    message: "give node or vm, not both",
  });
export type PodInput = z.input<typeof PodInput>;

export const AddPods = z.strictObject({ pods: z.array(PodInput).min(1).max(10_000) });
export type AddPodsInput = z.input<typeof AddPods>;

export const PdbInput = z
  .strictObject({
    name: Dns1123,
    namespace: Dns1123.default("default"),
    matchLabels: LabelMap,
    minAvailable: z.number().int().min(0).optional(),
    maxUnavailable: z.number().int().min(0).optional(),
  })
  .refine((p) => (p.minAvailable === undefined) !== (p.maxUnavailable === undefined), {
    message: "give minAvailable or maxUnavailable, not both",
  });
export type PdbInput = z.input<typeof PdbInput>;

/** An operator's `kubectl cordon` / `uncordon`, straight into the world (no API request). */
export const NodeAction = z.strictObject({ node: z.string().min(1) });

const PolicyRuleInput = z.strictObject({
  apiGroups: z.array(z.string()).min(1),
  resources: z.array(z.string().min(1)).min(1),
  verbs: z.array(z.string().min(1)).min(1),
});

/** Another identity (a user or service account) and what it may do; cluster-admin when no rules. */
export const IssueToken = z.strictObject({
  user: z.string().min(1).max(256),
  rules: z.array(PolicyRuleInput).max(100).optional(),
});
export type IssueTokenInput = z.input<typeof IssueToken>;
