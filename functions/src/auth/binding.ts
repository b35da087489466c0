import type { Result } from "@quiesce/protocol";
import { settingName } from "../options";
import {
  type ComputeResource,
  expectedVmName,
  isInstanceOf,
  parseComputeResourceId,
  sameResourceId,
} from "./resourceId";
import type { Denial, Principal } from "./types";

/** What the token is bound to when it may speak for the VM: that VM, its scale set, or any VM. */
export type RelayVmAuthorization = Result<"vm" | "scaleSet" | "any", Denial>;

const deny = (reason: string): { ok: false; error: Denial } => ({
  ok: false,
  error: { status: 403, reason },
});

/**
 * Is this principal allowed to report for this VM? A relay key may report for any VM; an Entra
 * identity only for the compute resource its token is bound to: that VM ("vm"), or an instance
 * of that uniform scale set ("scaleSet": any instance of the set could then speak for another).
 */
export function authorizeRelayForVm(
  principal: Principal,
  vm: { name: string; resourceId: string; vmScaleSetName?: string | undefined },
  sharedIdentities: SharedRelayIdentities = new Map(),
): RelayVmAuthorization {
  if (!principal.roles.includes("relay"))
    return deny(`${principal.display} does not hold the relay role`);
  if (principal.kind === "sharedKey") return { ok: true, value: "any" };

  const bound = principal.boundResourceId;
  const shared = principal.identityResourceId
    ? sharedIdentities.get(principal.identityResourceId.toLowerCase())
    : undefined;
  if (!bound && shared) return authorizeSharedIdentity(principal, vm, shared);
  if (!bound) {
    const identity = principal.identityResourceId
      ? `its identity ${principal.identityResourceId} is not a VM or scale set (a user-assigned identity can be shared by many VMs)`
      : "it carries no xms_mirid";
    return {
      ok: false,
      error: {
        status: 403,
        reason:
          `${principal.display} cannot be bound to a VM: the token has no xms_az_rid and ${identity}; ` +
          `give the VM a system-assigned identity with the relay role, use a user-assigned identity on a host that issues xms_az_rid, ` +
          `declare it in ${settingName("SHARED_RELAY_IDENTITIES")}, or require attestation (docs/auth.md)`,
        unbindable: true,
      },
    };
  }

  const reported = reportedVm(vm);
  if (!reported.ok) return reported;

  if (sameResourceId(bound, vm.resourceId)) return { ok: true, value: "vm" };
  const boundResource = parseComputeResourceId(bound);
  if (boundResource && isInstanceOf(reported.value, boundResource))
    return { ok: true, value: "scaleSet" };
  return deny(
    `${principal.display} is bound to ${bound} and may not report for VM ${vm.name} (${vm.resourceId})`,
  );
}

/**
 * User-assigned identities shared by every VM of some scale sets, which the operator names
 * (QUIESCE_SHARED_RELAY_IDENTITIES): an AKS node pool's kubelet identity is the case. Keyed by
 * the identity's resource id in lower case; the values are scale-set resource ids.
 */
export type SharedRelayIdentities = ReadonlyMap<string, readonly string[]>;

/**
 * A shared identity binds no more than a uniform scale set's own identity does ("scaleSet": any
 * VM of those scale sets could speak for another; docs/auth.md): the reported VM must be an
 * instance of one of them, by its resource id (Uniform) or its scale-set name in the same
 * resource group (Flexible, whose VMs have plain virtualMachines ids).
 */
function authorizeSharedIdentity(
  principal: Principal,
  vm: { name: string; resourceId: string; vmScaleSetName?: string | undefined },
  scaleSets: readonly string[],
): RelayVmAuthorization {
  const checked = reportedVm(vm);
  if (!checked.ok) return checked;
  const reported = checked.value;
  for (const id of scaleSets) {
    const set = parseComputeResourceId(id);
    if (set?.kind !== "scaleSet") continue;
    if (isInstanceOf(reported, set)) return { ok: true, value: "scaleSet" };
    const flexible =
      reported.kind === "vm" &&
      vm.vmScaleSetName?.toLowerCase() === set.scaleSet.toLowerCase() &&
      reported.subscription.toLowerCase() === set.subscription.toLowerCase() &&
      reported.resourceGroup.toLowerCase() === set.resourceGroup.toLowerCase();
    if (flexible) return { ok: true, value: "scaleSet" };
  }
  return deny(
    `${principal.display} is the shared identity ${principal.identityResourceId}, which ${settingName("SHARED_RELAY_IDENTITIES")} allows only for ${scaleSets.join(", ")}, not for VM ${vm.name} (${vm.resourceId})`,
  );
}

/**
 * The reported VM's resource id, when it is a VM or a scale-set instance whose name is the one
 * reported: the cluster state is keyed by name, so the name must be the one the id carries.
 */
function reportedVm(vm: { name: string; resourceId: string }): Result<ComputeResource, Denial> {
  const reported = parseComputeResourceId(vm.resourceId);
  if (!reported || (reported.kind !== "vm" && reported.kind !== "scaleSetInstance"))
    return deny(`reported resourceId ${vm.resourceId} is not a virtual machine resource id`);
  const name = expectedVmName(reported);
  if (name === undefined || name !== vm.name.toLowerCase())
    return deny(`reported VM name ${vm.name} does not match its resourceId ${vm.resourceId}`);
  return { ok: true, value: reported };
}
