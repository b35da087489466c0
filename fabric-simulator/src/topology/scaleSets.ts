import { stableUuid } from "./stableId";

/**
 * How Azure names a scale set's VMs, for both orchestration modes (Microsoft Learn, "Understand
 * names and instance IDs for Azure Virtual Machine Scale Set VMs"):
 * - Uniform: the VM is `{scaleSet}_{instanceId}` (the name in `Resources` and IMDS
 *   `compute.name`), its id `…/virtualMachineScaleSets/{scaleSet}/virtualMachines/{instanceId}`,
 *   its computer name (hostname) `{prefix}{instanceId in base 36, 6 digits}`: AKS's node
 *   `aks-nodepool1-12345678-vmss00000a` is instance 10 of scale set `aks-nodepool1-12345678-vmss`.
 * - Flexible: the VM is `{scaleSet}_{8 hex}`, an ordinary VM (`…/virtualMachines/{name}`), its
 *   computer name `{prefix}{6 characters}`.
 */

export type OrchestrationMode = "Uniform" | "Flexible";

/** A computer name (and so a Kubernetes node name): lower case letters, digits and '-'. */
export function computerNamePrefix(prefix: string): string {
  return prefix.toLowerCase().replace(/[^a-z0-9-]/g, "-");
}

/** The hostname Azure gives a VM created alone or in an availability set: its own name. */
export const plainComputerName = (vmName: string): string => computerNamePrefix(vmName);

/** Uniform: the prefix and the instance id in base 36, left-padded to 6 digits. */
export function uniformComputerName(prefix: string, instanceId: string): string {
  const n = Number.parseInt(instanceId, 10);
  const suffix = Number.isInteger(n) && n >= 0 ? n.toString(36).padStart(6, "0") : instanceId;
  return `${computerNamePrefix(prefix)}${suffix}`;
}

/** Stable random-looking characters, so a topology always yields the same names. */
function stableChars(length: number, alphabet: string, ...parts: string[]): string {
  const hex = stableUuid(...parts).replaceAll("-", "");
  let out = "";
  for (let i = 0; out.length < length; i++) {
    const byte = Number.parseInt(hex.slice((i * 2) % hex.length, ((i * 2) % hex.length) + 2), 16);
    out += alphabet[byte % alphabet.length];
  }
  return out;
}

/** Flexible: `{scaleSet}_{8 hex characters}`. */
export const flexibleVmName = (scaleSet: string, index: number): string =>
  `${scaleSet}_${stableChars(8, "0123456789abcdef", "flexible vm", scaleSet, String(index))}`;

/** Flexible: the prefix and 6 characters. */
export const flexibleComputerName = (prefix: string, vmName: string): string =>
  `${computerNamePrefix(prefix)}${stableChars(6, "0123456789abcdefghijklmnopqrstuvwxyz", "flexible host", vmName)}`;
