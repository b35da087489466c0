/**
 * ARM resource ids, read the way ARM reads them: the fixed segments (`subscriptions`,
 * `resourceGroups`, `providers`) and the type names compared without regard to case, the names
 * kept as written (ARM is case-insensitive, but an operator reading a log recognises the casing
 * they gave their resources). Only what the control-plane operations need: one provider
 * namespace and its type/name pairs, no extension resources.
 */
export interface ResourceId {
  subscriptionId: string;
  resourceGroup: string;
  /** The provider namespace, e.g. `Microsoft.Compute`. */
  namespace: string;
  /** The type/name pairs after the namespace, outermost first, e.g. scale set then instance. */
  resources: { type: string; name: string }[];
}

/** A resource id, or undefined for anything that is not `/subscriptions/…/resourceGroups/…/providers/…`. */
export function parseResourceId(id: string): ResourceId | undefined {
  const parts = id.trim().replace(/\/+$/, "").split("/");
  if (parts[0] !== "" || parts.length < 9 || parts.length % 2 === 0) return undefined;
  const [, subs, subscriptionId, rgs, resourceGroup, providers, namespace, ...rest] = parts;
  if (
    subs?.toLowerCase() !== "subscriptions" ||
    rgs?.toLowerCase() !== "resourcegroups" ||
    providers?.toLowerCase() !== "providers" ||
    !subscriptionId ||
    !resourceGroup ||
    !namespace
  )
    return undefined;
  const resources: ResourceId["resources"] = [];
  for (let i = 0; i < rest.length; i += 2) {
    const type = rest[i];
    const name = rest[i + 1];
    if (!type || !name || type.toLowerCase() === "providers") return undefined;
    resources.push({ type, name });
  }
  return { subscriptionId, resourceGroup, namespace, resources };
}

/** Is `id` of this namespace and nested type chain (e.g. ["virtualMachineScaleSets", "virtualMachines"])? */
export function isResourceType(id: ResourceId, namespace: string, types: string[]): boolean {
  return (
    id.namespace.toLowerCase() === namespace.toLowerCase() &&
    id.resources.length === types.length &&
    id.resources.every((r, i) => r.type.toLowerCase() === types[i]?.toLowerCase())
  );
}

/** The id as a request path, every segment percent-encoded (names may hold any character ARM allows). */
export function resourcePath(id: ResourceId): string {
  return armPath(
    "subscriptions",
    id.subscriptionId,
    "resourceGroups",
    id.resourceGroup,
    "providers",
    id.namespace,
    ...id.resources.flatMap((r) => [r.type, r.name]),
  );
}

/** A request path from raw segments, each percent-encoded. */
export function armPath(...segments: string[]): string {
  return `/${segments.map(encodeURIComponent).join("/")}`;
}
