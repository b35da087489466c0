/**
 * Kubernetes RBAC for the stand-in: a request is allowed when one of its identity's PolicyRules
 * lists its API group, resource (`pods/eviction` for the subresource) and verb (`*` matches any).
 * The relay's service account holds exactly RELAY_RULES, the ClusterRole the DaemonSet's
 * manifests grant; docs/kubernetes-rbac.txt says the same in plain text for the manifests, and a
 * test keeps the two equal.
 */

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** What the relay's drain and recover call, and nothing else. */
export const RELAY_RULES: readonly PolicyRule[] = [
  // Find its node by spec.providerID (list), read it again (get), cordon and uncordon (patch).
  { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "patch"] },
  // Its node's KEP-5683 lifecycle conditions (MaintenancePlanned, DrainInProgress, …).
  { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
  // The pods on its node: GET /api/v1/pods?fieldSelector=spec.nodeName=<node>, all namespaces.
  { apiGroups: [""], resources: ["pods"], verbs: ["list"] },
  // The Eviction API, so PodDisruptionBudgets are respected.
  { apiGroups: [""], resources: ["pods/eviction"], verbs: ["create"] },
];

export const CLUSTER_ADMIN_RULES: readonly PolicyRule[] = [
  { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
];

/** The attributes RBAC decides on (Kubernetes' authorizer.Attributes, resource requests only). */
export interface RequestAttributes {
  readonly verb: string;
  readonly apiGroup: string;
  /** `pods`, or `pods/eviction` for a subresource; undefined for a path that names no resource. */
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

const has = (list: readonly string[], value: string) => list.includes("*") || list.includes(value);

export function allows(rules: readonly PolicyRule[], a: RequestAttributes): boolean {
  const resource = a.resource;
  if (resource === undefined) return false;
  return rules.some(
    (r) => has(r.apiGroups, a.apiGroup) && has(r.resources, resource) && has(r.verbs, a.verb),
  );
}

/** The API server's wording for a refusal. */
export function forbiddenMessage(user: string, a: RequestAttributes): string {
  const what = a.resource ?? "the requested path";
  const [resource, sub] = what.split("/");
  const subject = a.name ? `${resource} "${a.name}"` : what;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  const kind = sub ? `resource "${resource}/${sub}"` : `resource "${resource}"`;
  return `${subject} is forbidden: User "${user}" cannot ${a.verb} ${kind} in API group "${a.apiGroup}" ${scope}`;
}

/**
 * Reads docs/kubernetes-rbac.txt's rules: one `<apiGroup> <resource> <verb,verb…>` per line
 * (`""` is the core group), `#` comments. Tests use it to keep the file and RELAY_RULES equal.
 */
export function parseRbacText(text: string): PolicyRule[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter((l) => l !== "")
    .map((l) => {
      const [group, resource, verbs] = l.split(/\s+/);
      if (group === undefined || resource === undefined || verbs === undefined)
        throw new Error(`not a rule: ${l}`);
      return {
        apiGroups: [group === '""' ? "" : group],
        resources: [resource],
        verbs: verbs.split(","),
      };
    });
}
