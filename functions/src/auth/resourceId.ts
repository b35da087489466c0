/**
 * Azure Compute resource ids, compared case-insensitively as ARM does. Only the shapes the
 * binding needs: a VM, a scale set, and a uniform scale set's instance.
 */
export type ComputeResource =
  | { kind: "vm"; subscription: string; resourceGroup: string; name: string }
  | { kind: "scaleSet"; subscription: string; resourceGroup: string; scaleSet: string }
  | {
      kind: "scaleSetInstance";
      subscription: string;
      resourceGroup: string;
      scaleSet: string;
      instanceId: string;
    };

const COMPUTE_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/(virtualMachines|virtualMachineScaleSets)\/([^/]+)(?:\/virtualMachines\/([^/]+))?\/?$/i;

/** Parses (and lower-cases) a compute resource id; undefined for anything else. */
export function parseComputeResourceId(id: string): ComputeResource | undefined {
  const m = COMPUTE_ID.exec(id.trim());
  if (!m) return undefined;
  const [, sub, rg, type, name, instance] = m.map((part) => part?.toLowerCase());
  if (!sub || !rg || !type || !name) return undefined;
  if (type === "virtualmachines")
    return instance === undefined
      ? { kind: "vm", subscription: sub, resourceGroup: rg, name }
      : undefined;
  return instance === undefined
    ? { kind: "scaleSet", subscription: sub, resourceGroup: rg, scaleSet: name }
    : {
        kind: "scaleSetInstance",
        subscription: sub,
        resourceGroup: rg,
        scaleSet: name,
        instanceId: instance,
      };
}

/** Same resource, ignoring case and a trailing slash. */
export function sameResourceId(a: string, b: string): boolean {
  const norm = (id: string) => id.trim().replace(/\/+$/, "").toLowerCase();
  return norm(a) === norm(b);
}

/** Is `instance` one of the uniform scale set `scaleSet`'s instances? */
export function isInstanceOf(instance: ComputeResource, scaleSet: ComputeResource): boolean {
  return (
    instance.kind === "scaleSetInstance" &&
    scaleSet.kind === "scaleSet" &&
    instance.subscription === scaleSet.subscription &&
    instance.resourceGroup === scaleSet.resourceGroup &&
    instance.scaleSet === scaleSet.scaleSet
  );
}

/**
 * The name IMDS reports (`compute.name`, also the name in an event's `Resources`) for a VM
 * resource: the VM's own name, or `<scaleSet>_<instanceId>` for a uniform scale set instance.
 */
export function expectedVmName(resource: ComputeResource): string | undefined {
  if (resource.kind === "vm") return resource.name;
  if (resource.kind === "scaleSetInstance") return `${resource.scaleSet}_${resource.instanceId}`;
  return undefined;
}
