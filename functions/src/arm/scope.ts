import type { Result } from "@quiesce/protocol";
import { type ArmError, localError } from "./armError";
import type { ArmClient } from "./client";
import { armPath, isResourceType, parseResourceId, type ResourceId } from "./resourceId";
import { getVirtualMachine, isVirtualMachineId } from "./virtualMachine";

/**
 * The resource a scheduled event is acknowledged on through the Maintenance RP: Azure delivers
 * an event to every VM of an availability set or scale-set placement group, and scopes its ARM
 * id to the scale set, not the instance ("If you're using a Virtual Machine Scale Set, then the
 * scheduled event ID includes the ID of the entire Virtual Machine Scale Set": scheduled-events
 * Event Grid doc). The acknowledge API takes `virtualMachines`, `virtualMachineScaleSets` or
 * `availabilitySets` (az maintenance scheduledevents help).
 */
export interface AcknowledgeScope {
  subscriptionId: string;
  resourceGroup: string;
  resourceType: "virtualMachines" | "virtualMachineScaleSets" | "availabilitySets";
  name: string;
}

/** What the coordinator stores per VM from instance metadata (`compute.*`). */
export interface VmIdentity {
  name: string;
  vmId: string;
  resourceId: string;
  subscriptionId?: string;
  resourceGroupName?: string;
  /** Set for scale-set members; for a Flexible member `resourceId` is a plain `virtualMachines` id. */
  vmScaleSetName?: string;
}

/** The scope's path: `/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Compute/{type}/{name}`. */
export function scopePath(scope: AcknowledgeScope): string {
  return armPath(
    "subscriptions",
    scope.subscriptionId,
    "resourceGroups",
    scope.resourceGroup,
    "providers",
    "Microsoft.Compute",
    scope.resourceType,
    scope.name,
  );
}

export interface ScopeResolver {
  resolve(vm: VmIdentity): Promise<Result<AcknowledgeScope, ArmError>>;
}

/** Enough for any fleet one coordinator serves; only bounds memory. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Resolves and remembers each VM's acknowledge scope. A resolution never goes stale: "a VM can
 * only be added to availability set at creation time. An existing VM cannot be added to an
 * availability set" (Compute API reference, `availabilitySet`), and a VM re-created under the
 * same name has a new vmId, which is part of the key. Failures are not remembered.
 */
export function createScopeResolver(
  arm: ArmClient,
  options?: { maxEntries?: number },
): ScopeResolver {
  const maxEntries = Math.max(1, options?.maxEntries ?? DEFAULT_MAX_ENTRIES);
  const cache = new Map<string, AcknowledgeScope>();
  const inflight = new Map<string, Promise<Result<AcknowledgeScope, ArmError>>>();

  return {
    async resolve(vm) {
      const key = `${vm.vmId.toLowerCase()}|${vm.resourceId.trim().toLowerCase()}`;
      const hit = cache.get(key);
      if (hit) {
        // Least recently used goes first: a hit moves to the end of the Map's order.
        cache.delete(key);
        cache.set(key, hit);
        return { ok: true, value: hit };
      }
      let pending = inflight.get(key);
      if (!pending) {
        pending = resolveScope(arm, vm).finally(() => inflight.delete(key));
        inflight.set(key, pending);
      }
      const result = await pending;
      if (result.ok) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(key, result.value);
      }
      return result;
    },
  };
}

/** One resolution, uncached: at most one GET of the VM. */
export async function resolveScope(
  arm: ArmClient,
  vm: VmIdentity,
): Promise<Result<AcknowledgeScope, ArmError>> {
  const id = vmResourceId(vm);
  if (!id)
    return {
      ok: false,
      error: localError(
        "InvalidResourceId",
        `VM ${vm.name}: ${vm.resourceId} is not a VM resource id`,
      ),
    };
  const at = (resourceType: AcknowledgeScope["resourceType"], name: string): AcknowledgeScope => ({
    subscriptionId: id.subscriptionId,
    resourceGroup: id.resourceGroup,
    resourceType,
    name,
  });
  // A Uniform instance's id names its scale set: no request needed.
  if (id.resources.length === 2)
    return { ok: true, value: at("virtualMachineScaleSets", id.resources[0]?.name ?? "") };
  // A Flexible member: IMDS names the scale set, which sits in the VM's resource group.
  if (vm.vmScaleSetName)
    return { ok: true, value: at("virtualMachineScaleSets", vm.vmScaleSetName) };
  // Instance metadata has no availability-set field: ask ARM. The VM's own properties also name
  // a Flexible scale set, for an identity stored without vmScaleSetName.
  const got = await getVirtualMachine(arm, id, "resolveScope");
  if (!got.ok) return got;
  const props = got.value.body.properties;
  for (const [ref, type] of [
    [props?.availabilitySet?.id, "availabilitySets"],
    [props?.virtualMachineScaleSet?.id, "virtualMachineScaleSets"],
  ] as const) {
    const parent = ref ? parseResourceId(ref) : undefined;
    if (parent && isResourceType(parent, "Microsoft.Compute", [type]))
      return {
        ok: true,
        value: {
          subscriptionId: parent.subscriptionId,
          resourceGroup: parent.resourceGroup,
          resourceType: type,
          name: parent.resources[0]?.name ?? "",
        },
      };
  }
  return { ok: true, value: at("virtualMachines", id.resources[0]?.name ?? vm.name) };
}

/** The VM's id: its `resourceId`, or one built from the subscription, group and name IMDS gave. */
function vmResourceId(vm: VmIdentity): ResourceId | undefined {
  const parsed = parseResourceId(vm.resourceId);
  if (parsed && isVirtualMachineId(parsed)) return parsed;
  if (!vm.subscriptionId || !vm.resourceGroupName || !vm.name) return undefined;
  return {
    subscriptionId: vm.subscriptionId,
    resourceGroup: vm.resourceGroupName,
    namespace: "Microsoft.Compute",
    resources: [{ type: "virtualMachines", name: vm.name }],
  };
}
