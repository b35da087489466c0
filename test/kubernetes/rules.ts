import { idOf, type KubeObject, podSpecOf } from "./kustomize";

/**
 * Quiesce's own rules for its Kubernetes install, beyond what the schemas say. Each returns what
 * is wrong (nothing: an empty list), so a test can show a broken copy fails.
 */

type Map = Record<string, unknown>;
const asMap = (v: unknown): Map => (typeof v === "object" && v !== null ? (v as Map) : {});
const asList = (v: unknown): Map[] => (Array.isArray(v) ? v.map(asMap) : []);

/** The state directory on the node, and where the relay keeps its state file in it. */
export const STATE_DIR = "/var/lib/quiesce";

/**
 * The APIs used, each GA and served by every Kubernetes version AKS supports (1.31 LTS to 1.37):
 * the schema package merges removed APIs in, so it would accept an old apps/v1beta2.
 */
export const SERVED_APIS = new Set([
  "v1 Namespace",
  "v1 ServiceAccount",
  "v1 ConfigMap",
  "apps/v1 DaemonSet",
  "rbac.authorization.k8s.io/v1 ClusterRole",
  "rbac.authorization.k8s.io/v1 ClusterRoleBinding",
  "scheduling.k8s.io/v1 PriorityClass",
]);

/**
 * Everything the relay may do, as `group/resource verb` (deploy/kubernetes/base/rbac.yaml):
 * find and cordon its node, write its lifecycle conditions, list its node's pods, evict them
 * through the Eviction API.
 */
export const ALLOWED_RBAC = [
  "/nodes get",
  "/nodes list",
  "/nodes patch",
  "/nodes/status patch",
  "/pods list",
  "/pods/eviction create",
];

export function apiProblems(objects: KubeObject[]): string[] {
  return objects
    .filter((o) => !SERVED_APIS.has(`${o.apiVersion} ${o.kind}`))
    .map((o) => `${idOf(o)}: ${o.apiVersion} ${o.kind} is not an API every AKS version serves`);
}

/** The relay's DaemonSet: host network, state on the node, least privilege, sized, tolerant. */
export function daemonSetProblems(objects: KubeObject[]): string[] {
  const sets = objects.filter((o) => o.kind === "DaemonSet");
  if (sets.length !== 1) return [`expected one DaemonSet, found ${sets.length}`];
  const ds = sets[0] as KubeObject;
  const spec = podSpecOf(ds) ?? {};
  const problems: string[] = [];
  const fail = (p: string) => problems.push(`${idOf(ds)}: ${p}`);

  if (spec.hostNetwork !== true) fail("hostNetwork must be true (AKS's IMDS restriction)");
  if (spec.dnsPolicy !== "ClusterFirstWithHostNet")
    fail("dnsPolicy must be ClusterFirstWithHostNet with hostNetwork");
  if (spec.hostPID === true || spec.hostIPC === true) fail("hostPID and hostIPC must stay off");

  const rollingUpdate = asMap(asMap(asMap(ds.spec).updateStrategy).rollingUpdate);
  if (![undefined, 0, "0", "0%"].includes(rollingUpdate.maxSurge as string | number | undefined))
    fail("maxSurge must be 0: two relays on one node would share its state file");

  const priority = spec.priorityClassName;
  const classes = objects.filter((o) => o.kind === "PriorityClass").map((o) => o.metadata.name);
  if (
    typeof priority !== "string" ||
    !(classes.includes(priority) || priority.startsWith("system-"))
  )
    fail("priorityClassName must name a PriorityClass of the install (or a system- class)");
  const accounts = objects.filter((o) => o.kind === "ServiceAccount").map((o) => o.metadata.name);
  if (!accounts.includes(spec.serviceAccountName as string))
    fail("serviceAccountName must name the install's ServiceAccount");

  const tolerations = asList(spec.tolerations);
  const tolerated = tolerations.map((t) => `${t.key}=${t.value ?? "*"}`);
  const tolerateAll = tolerations.some((t) => t.key === undefined && t.operator === "Exists");
  for (const need of [
    "kubernetes.azure.com/scalesetpriority=spot",
    "node.kubernetes.io/unschedulable=*",
    "remediator.kubernetes.azure.com/unschedulable=*",
  ])
    if (!tolerated.includes(need) && !tolerateAll)
      fail(`must tolerate ${need} (Spot, cordoned and AKS-remediated nodes)`);

  const stateVolume = asList(spec.volumes).find(
    (v) => asMap(v.hostPath).path === STATE_DIR && typeof v.name === "string",
  );
  if (!stateVolume) fail(`a hostPath volume must hold ${STATE_DIR} (hook state on the node)`);

  const containers = asList(spec.containers);
  const relay = containers.find((c) => c.name === "relay");
  if (!relay) fail("must have a container named relay");
  else {
    const mount = asList(relay.volumeMounts).find((m) => m.name === stateVolume?.name);
    const stateFile = asList(relay.env).find((e) => e.name === "QUIESCE_STATE_FILE")?.value;
    if (!mount || typeof stateFile !== "string" || !stateFile.startsWith(`${mount.mountPath}/`))
      fail("QUIESCE_STATE_FILE must be a file in the mounted hostPath state directory");
    const sc = asMap(relay.securityContext);
    if (sc.runAsNonRoot !== true || sc.runAsUser === 0) fail("the relay must run as non-root");
    if (sc.readOnlyRootFilesystem !== true) fail("the relay's root filesystem must be read-only");
    if (asList(asMap(sc.capabilities).add).length > 0) fail("the relay must add no capability");
  }
  for (const c of [...asList(spec.initContainers), ...containers])
    problems.push(...containerProblems(ds, c));
  return problems;
}

/** Any container: not privileged, no escalation, capabilities dropped, requests and limits set. */
function containerProblems(ds: KubeObject, c: Map): string[] {
  const problems: string[] = [];
  const fail = (p: string) => problems.push(`${idOf(ds)} container ${String(c.name)}: ${p}`);
  const sc = asMap(c.securityContext);
  if (sc.privileged === true) fail("must not be privileged");
  if (sc.allowPrivilegeEscalation !== false) fail("must set allowPrivilegeEscalation: false");
  const caps = asMap(sc.capabilities);
  if (!(Array.isArray(caps.drop) && caps.drop.includes("ALL"))) fail("must drop ALL capabilities");
  const added = Array.isArray(caps.add) ? (caps.add as string[]) : [];
  const extra = added.filter((a) => !["CHOWN", "FOWNER"].includes(a));
  if (extra.length > 0) fail(`adds capabilities beyond CHOWN, FOWNER: ${extra.join(", ")}`);
  const resources = asMap(c.resources);
  for (const [kind, names] of [
    ["requests", ["cpu", "memory"]],
    ["limits", ["memory"]],
  ] as const)
    for (const n of names)
      if (asMap(resources[kind])[n] === undefined) fail(`must set resources.${kind}.${n}`);
  return problems;
}

/** RBAC: one ClusterRole with exactly the allowed verbs, bound to the relay's account alone. */
export function rbacProblems(objects: KubeObject[]): string[] {
  const problems: string[] = [];
  const roles = objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
  if (roles.length !== 1) problems.push(`expected one ClusterRole, found ${roles.length} roles`);
  const granted = roles.flatMap((r) =>
    asList(r.rules).flatMap((rule) => {
      if (rule.nonResourceURLs || rule.resourceNames) problems.push(`${idOf(r)}: unexpected rule`);
      const groups = (rule.apiGroups as string[] | undefined) ?? [];
      const resources = (rule.resources as string[] | undefined) ?? [];
      const verbs = (rule.verbs as string[] | undefined) ?? [];
      return groups.flatMap((g) =>
        resources.flatMap((res) => verbs.map((v) => `${g}/${res} ${v}`)),
      );
    }),
  );
  const sorted = [...new Set(granted)].sort();
  if (JSON.stringify(sorted) !== JSON.stringify([...ALLOWED_RBAC].sort()))
    problems.push(
      `RBAC grants [${sorted.join(", ")}], allowed exactly [${ALLOWED_RBAC.join(", ")}]`,
    );
  if (granted.length !== sorted.length) problems.push("RBAC grants something twice");

  const accounts = objects.filter((o) => o.kind === "ServiceAccount");
  for (const b of objects.filter((o) => o.kind.endsWith("RoleBinding"))) {
    const subjects = asList(b.subjects);
    const ok =
      subjects.length === 1 &&
      accounts.some(
        (a) =>
          subjects[0]?.kind === "ServiceAccount" &&
          subjects[0]?.name === a.metadata.name &&
          subjects[0]?.namespace === a.metadata.namespace,
      );
    if (!ok) problems.push(`${idOf(b)}: must bind the relay's ServiceAccount and nothing else`);
  }
  return problems;
}
