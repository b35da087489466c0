import type { Policy } from "@quiesce/protocol/policy";

/**
 * What a cluster's policy asks of Azure Resource Manager, named as the policy spells it: each
 * needs QUIESCE_CONTROL_PLANE, and without it would fail only when first needed (a drain, a gate,
 * a patch run to cancel, an alert processing rule to scope), so config.ts refuses it at start.
 */
export function armUses(p: Policy): string[] {
  return [
    ...(p.loadBalancerDrain.enabled ? ["loadBalancerDrain"] : []),
    ...p.gates.filter((g) => g.kind === "alertRule").map((g) => `gate ${g.name}`),
    ...(p.guestPatching.whileEventActive === "cancel" &&
    p.guestPatching.maintenanceConfigurations.length > 0
      ? ["guestPatching.whileEventActive cancel"]
      : []),
    ...(p.maintenanceSignal.alertProcessingRules.length > 0
      ? ["maintenanceSignal.alertProcessingRules"]
      : []),
  ];
}
