import type { Result } from "@quiesce/protocol";
import { z } from "zod";
import { AlertRuleSpec, checkArmReferences, LoadBalancerSpec } from "./armTopology";
import {
  flexibleComputerName,
  flexibleVmName,
  type OrchestrationMode,
  plainComputerName,
  uniformComputerName,
} from "./scaleSets";
import {
  GroupPolicyFields,
  type ScheduledEventsPolicy,
  scheduledEventsPolicyOf,
} from "./scheduledEventsPolicy";
import { stableUuid } from "./stableId";

export { stableUuid };

/**
 * The simulated cluster: which VMs exist and which Azure group delivers their events. A VM belongs
 * to exactly one group, as in Azure: an availability set, a scale-set placement group, or none
 * (a standalone VM sees only its own events, modelled as a group of one).
 */

/** Azure VM names (and `<scaleSet>_<instance>` instance names) are safe as one URL path segment. */
export const SimVmName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/,
    "VM name must be 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

export const GroupName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/,
    "group name must be 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

const VmSpec = z.strictObject({
  name: SimVmName,
  faultDomain: z.number().int().min(0).max(20).optional(),
  updateDomain: z.number().int().min(0).max(30).optional(),
  zone: z.string().min(1).max(8).optional(),
  /** false: no relay runs on this VM (IMDS still serves it); the group's `relays` otherwise. */
  relay: z.boolean().optional(),
});
export type VmSpec = z.infer<typeof VmSpec>;

/** Either a count (names are generated) or the VMs themselves. */
const VmList = z.union([
  z.number().int().min(1).max(10_000),
  z
    .array(z.union([SimVmName, VmSpec]))
    .min(1)
    .max(10_000),
]);

const AvailabilitySetSpec = z.strictObject({
  kind: z.literal("availabilitySet"),
  name: GroupName,
  vms: VmList,
  vmNamePrefix: z.string().max(60).optional(),
  faultDomains: z.number().int().min(1).max(3).default(2),
  updateDomains: z.number().int().min(1).max(20).default(5),
  ...GroupPolicyFields,
});

const PlacementGroupSpec = z.strictObject({
  kind: z.literal("scaleSetPlacementGroup"),
  name: GroupName,
  scaleSetName: GroupName.optional(),
  placementGroupId: z.string().min(1).max(64).optional(),
  vms: VmList,
  faultDomains: z.number().int().min(1).max(5).default(5),
  zone: z.string().min(1).max(8).optional(),
  /** Uniform (instances `<scaleSet>_<id>`) or Flexible (VMs `<scaleSet>_<8 hex>`). */
  orchestrationMode: z.enum(["Uniform", "Flexible"]).default("Uniform"),
  /** The hostnames' prefix (AKS: the scale set's name); the scale set's name when absent. */
  computerNamePrefix: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,58}$/, "1-58 letters, digits or '-'")
    .optional(),
  ...GroupPolicyFields,
});

/** Each VM is a group of its own; the policy and `relays` apply to each. */
const StandaloneSpec = z.strictObject({
  kind: z.literal("standalone"),
  vms: z
    .array(z.union([SimVmName, VmSpec]))
    .min(1)
    .max(10_000),
  ...GroupPolicyFields,
});

export const GroupSpec = z.discriminatedUnion("kind", [
  AvailabilitySetSpec,
  PlacementGroupSpec,
  StandaloneSpec,
]);
export type GroupSpec = z.input<typeof GroupSpec>;

export const Topology = z
  .strictObject({
    subscriptionId: z.string().min(1).max(64).default("00000000-0000-4000-8000-000000000000"),
    resourceGroupName: z
      .string()
      .regex(/^[-\w._()]{1,90}$/, "resource group names are 1-90 letters, digits, '-_.()'")
      .default("quiesce-sim"),
    location: z.string().min(1).max(40).default("westeurope"),
    groups: z.array(GroupSpec).min(1).max(10_000),
    /** Load balancers whose backend pools hold the NICs of whole groups (served over ARM). */
    loadBalancers: z.array(LoadBalancerSpec).max(100).optional(),
    /** Azure Monitor metric alert rules, fired and resolved through the control API. */
    alertRules: z.array(AlertRuleSpec).max(1000).optional(),
  })
  .superRefine(checkArmReferences);
export type Topology = z.infer<typeof Topology>;
export type TopologyInput = z.input<typeof Topology>;

export type GroupKind = "availabilitySet" | "scaleSetPlacementGroup" | "standalone";

/** What IMDS `/metadata/instance` says about a VM, and where its events come from. */
export interface VmRecord {
  readonly name: string;
  readonly group: string;
  readonly vmId: string;
  readonly resourceId: string;
  readonly subscriptionId: string;
  readonly resourceGroupName: string;
  readonly location: string;
  readonly vmScaleSetName?: string;
  readonly placementGroupId?: string;
  readonly platformFaultDomain: string;
  readonly platformUpdateDomain: string;
  readonly zone?: string;
  /** The hostname (`osProfile.computerName`): what a Kubernetes node on this VM is named. */
  readonly computerName: string;
  /** Set for scale-set VMs: Uniform instances have scale-set ids, Flexible VMs plain VM ids. */
  readonly orchestrationMode?: OrchestrationMode;
  /** Set once a Preempt or Terminate event completed for it: Azure deleted the VM. */
  readonly deleted: boolean;
  /** Whether a relay runs on it (false: declared without one; its IMDS is served all the same). */
  readonly relay: boolean;
}

export interface GroupRecord {
  readonly name: string;
  readonly kind: GroupKind;
  readonly vms: readonly string[];
  readonly scaleSetName?: string;
  readonly placementGroupId?: string;
  /** The `DocumentIncarnation` every VM of the group sees: one document per group. */
  readonly incarnation: number;
  /** Present when the topology gave the group a `scheduledEventsPolicy`. */
  readonly scheduledEventsPolicy?: ScheduledEventsPolicy;
}

function specs(list: number | ReadonlyArray<string | VmSpec>, prefix: string): VmSpec[] {
  if (typeof list === "number") {
    return Array.from({ length: list }, (_, i) => ({ name: `${prefix}${i}` }));
  }
  return list.map((v) => (typeof v === "string" ? { name: v } : v));
}

export interface ExpandedTopology {
  readonly vms: Record<string, VmRecord>;
  readonly groups: Record<string, GroupRecord>;
}

/** Turn a parsed topology into VM and group records; rejects duplicate VM or group names. */
export function expandTopology(
  topology: Topology,
  initialIncarnation = 1,
): Result<ExpandedTopology> {
  const vms: Record<string, VmRecord> = {};
  const groups: Record<string, GroupRecord> = {};
  const { subscriptionId, resourceGroupName, location } = topology;
  const rgPath = `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroupName}/providers/Microsoft.Compute`;
  const lowerNames = new Set<string>();

  type Spec = Topology["groups"][number];
  /** What every VM record has, whatever its group: ids, location, relay, not deleted. */
  const vmBase = (spec: Spec, v: VmSpec, group: string) => ({
    name: v.name,
    group,
    vmId: stableUuid(subscriptionId, resourceGroupName, v.name),
    subscriptionId,
    resourceGroupName,
    location,
    deleted: false,
    relay: v.relay ?? spec.relays ?? true,
  });
  const addVm = (vm: VmRecord): string | undefined => {
    const key = vm.name.toLowerCase();
    if (lowerNames.has(key)) return `duplicate VM name ${vm.name}`;
    lowerNames.add(key);
    vms[vm.name] = vm;
    return undefined;
  };
  const addGroup = (spec: Spec, g: Omit<GroupRecord, "incarnation">): string | undefined => {
    if (groups[g.name]) return `duplicate group name ${g.name}`;
    const policy = scheduledEventsPolicyOf(spec.scheduledEventsPolicy);
    groups[g.name] = {
      ...g,
      incarnation: initialIncarnation,
      ...(policy ? { scheduledEventsPolicy: policy } : {}),
    };
    return undefined;
  };

  for (const spec of topology.groups) {
    if (spec.kind === "availabilitySet") {
      const list = specs(spec.vms, spec.vmNamePrefix ?? `${spec.name}-`);
      const err = addGroup(spec, {
        name: spec.name,
        kind: spec.kind,
        vms: list.map((v) => v.name),
      });
      if (err) return { ok: false, error: err };
      for (const [i, v] of list.entries()) {
        const e = addVm({
          ...vmBase(spec, v, spec.name),
          resourceId: `${rgPath}/virtualMachines/${v.name}`,
          computerName: plainComputerName(v.name),
          platformFaultDomain: String(v.faultDomain ?? i % spec.faultDomains),
          platformUpdateDomain: String(v.updateDomain ?? i % spec.updateDomains),
          ...(v.zone ? { zone: v.zone } : {}),
        });
        if (e) return { ok: false, error: e };
      }
    } else if (spec.kind === "scaleSetPlacementGroup") {
      const scaleSetName = spec.scaleSetName ?? spec.name;
      const placementGroupId =
        spec.placementGroupId ?? stableUuid(subscriptionId, scaleSetName, spec.name);
      const flexible = spec.orchestrationMode === "Flexible";
      const list: VmSpec[] =
        flexible && typeof spec.vms === "number"
          ? Array.from({ length: spec.vms }, (_, i) => ({ name: flexibleVmName(scaleSetName, i) }))
          : specs(spec.vms, `${scaleSetName}_`);
      const prefix = spec.computerNamePrefix ?? scaleSetName;
      const err = addGroup(spec, {
        name: spec.name,
        kind: spec.kind,
        vms: list.map((v) => v.name),
        scaleSetName,
        placementGroupId,
      });
      if (err) return { ok: false, error: err };
      for (const [i, v] of list.entries()) {
        // Uniform scale sets name instances `<scaleSet>_<instanceId>`; the resource id uses the id.
        // A Flexible scale set's VMs are ordinary VMs (see scaleSets.ts).
        const instanceId = v.name.startsWith(`${scaleSetName}_`)
          ? v.name.slice(scaleSetName.length + 1)
          : String(i);
        const zone = v.zone ?? spec.zone;
        const e = addVm({
          ...vmBase(spec, v, spec.name),
          resourceId: flexible
            ? `${rgPath}/virtualMachines/${v.name}`
            : `${rgPath}/virtualMachineScaleSets/${scaleSetName}/virtualMachines/${instanceId}`,
          computerName: flexible
            ? flexibleComputerName(prefix, v.name)
            : uniformComputerName(prefix, instanceId),
          orchestrationMode: spec.orchestrationMode,
          vmScaleSetName: scaleSetName,
          // Flexible scale sets spread VMs over fault domains, not placement groups (assumed: "").
          ...(flexible ? {} : { placementGroupId }),
          platformFaultDomain: String(v.faultDomain ?? i % spec.faultDomains),
          platformUpdateDomain: String(v.updateDomain ?? i % spec.faultDomains),
          ...(zone ? { zone } : {}),
        });
        if (e) return { ok: false, error: e };
      }
    } else {
      for (const v of specs(spec.vms, "")) {
        const err = addGroup(spec, { name: v.name, kind: "standalone", vms: [v.name] });
        if (err) return { ok: false, error: err };
        const e = addVm({
          ...vmBase(spec, v, v.name),
          resourceId: `${rgPath}/virtualMachines/${v.name}`,
          computerName: plainComputerName(v.name),
          platformFaultDomain: String(v.faultDomain ?? 0),
          platformUpdateDomain: String(v.updateDomain ?? 0),
          ...(v.zone ? { zone: v.zone } : {}),
        });
        if (e) return { ok: false, error: e };
      }
    }
  }
  return { ok: true, value: { vms, groups } };
}
