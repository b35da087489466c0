import type { Result } from "@quiesce/protocol";
import { type ArmClient, parseResourceId } from "../arm";
import { getVirtualMachine, isVirtualMachineId } from "../arm/virtualMachine";

/**
 * The one ARM read that maps an attested vmId to a VM: GET the resource the relay claims to be
 * (a VM, or a Uniform scale set's instance) and read its `properties.vmId` and `name`. The
 * attested document names no VM, only its vmId (docs/auth.md), so this is what ties the two.
 */

export interface ArmVm {
  vmId: string;
  name: string;
}

export type ArmVmError =
  /** ARM says there is no such VM: the relay's claim is false. */
  | { kind: "absent"; detail: string }
  /** ARM could not answer (throttled, down, or our role missing): nobody's fault at the relay. */
  | { kind: "unavailable"; detail: string };

export type ReadVm = (resourceId: string) => Promise<Result<ArmVm, ArmVmError>>;

export function armVmReader(arm: ArmClient): ReadVm {
  return async (resourceId) => {
    const id = parseResourceId(resourceId);
    if (!id || !isVirtualMachineId(id))
      return {
        ok: false,
        error: { kind: "absent", detail: `${resourceId} is not a virtual machine's resource id` },
      };
    const res = await getVirtualMachine(arm, id, "attestation.readVm");
    if (!res.ok) {
      const e = res.error;
      const detail = `ARM GET ${resourceId}: ${e.status} ${e.code} ${e.message}`.slice(0, 512);
      return e.status === 404
        ? { ok: false, error: { kind: "absent", detail } }
        : { ok: false, error: { kind: "unavailable", detail } };
    }
    const vmId = res.value.body.properties?.vmId;
    const name = res.value.body.name;
    if (!vmId || !name)
      return {
        ok: false,
        error: {
          kind: "unavailable",
          detail: `ARM's answer for ${resourceId} has no vmId or name`,
        },
      };
    return { ok: true, value: { vmId, name } };
  };
}
