import { z } from "zod";

/**
 * The Azure resources around the VMs that the loopback Azure Resource Manager serves: load
 * balancers (whose backend pools hold the VMs' NICs) and Azure Monitor alert rules. Part of the
 * topology file; kept apart from the VM groups so the IMDS side never has to know about them.
 */

/** ARM resource names the simulator serves: one URL path segment. */
const ResourceName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/,
    "name must be 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

/** Azure Load Balancer admin state of a backend address (None: the health probe decides). */
export const AdminState = z.enum(["None", "Up", "Down"]);
export type AdminState = z.infer<typeof AdminState>;

const PoolSpec = z.strictObject({
  name: ResourceName,
  /** Every VM of these groups (availability sets, placement groups, standalone VMs) is a backend. */
  groups: z.array(ResourceName).min(1).max(1000),
  /** Admin state every address starts with. */
  adminState: AdminState.default("None"),
});

export const LoadBalancerSpec = z.strictObject({
  name: ResourceName,
  pools: z.array(PoolSpec).min(1).max(20),
  /** Simulated requests per simulated second the load balancer spreads over its backends. */
  requestsPerSecond: z.number().int().min(0).max(10_000).default(10),
  /**
   * Simulated seconds the health probe needs to see a VM that went down (Azure's default probe:
   * every 15 s, one failure); until then requests still reach the down VM and are dropped.
   */
  probeSeconds: z.number().min(0).max(3600).default(15),
});
export type LoadBalancerSpec = z.infer<typeof LoadBalancerSpec>;

export const Severity = z.enum(["Sev0", "Sev1", "Sev2", "Sev3", "Sev4"]);

export const AlertRuleSpec = z.union([
  ResourceName,
  z.strictObject({
    name: ResourceName,
    severity: Severity.default("Sev3"),
    description: z.string().max(1024).optional(),
  }),
]);
export type AlertRuleSpec = z.infer<typeof AlertRuleSpec>;

/** The topology's fields this module adds, and what they refer to. */
interface ArmTopologyShape {
  readonly groups: ReadonlyArray<
    | { readonly kind: "availabilitySet" | "scaleSetPlacementGroup"; readonly name: string }
    | { readonly kind: "standalone"; readonly vms: ReadonlyArray<string | { name: string }> }
  >;
  readonly loadBalancers?: readonly LoadBalancerSpec[];
  readonly alertRules?: readonly AlertRuleSpec[];
}

/** A pool may only name groups of the topology (a standalone VM's group is the VM's name). */
export function checkArmReferences(t: ArmTopologyShape, ctx: z.RefinementCtx): void {
  const groups = new Set<string>();
  for (const g of t.groups) {
    if (g.kind === "standalone") {
      for (const v of g.vms) groups.add(typeof v === "string" ? v : v.name);
    } else groups.add(g.name);
  }
  const issue = (path: PropertyKey[], message: string) =>
    ctx.addIssue({ code: "custom", path, message });
  const lbNames = new Set<string>();
  for (const [i, lb] of (t.loadBalancers ?? []).entries()) {
    if (lbNames.has(lb.name.toLowerCase()))
      issue(["loadBalancers", i, "name"], `duplicate load balancer ${lb.name}`);
    lbNames.add(lb.name.toLowerCase());
    const poolNames = new Set<string>();
    for (const [j, pool] of lb.pools.entries()) {
      if (poolNames.has(pool.name.toLowerCase()))
        issue(["loadBalancers", i, "pools", j, "name"], `duplicate pool ${pool.name}`);
      poolNames.add(pool.name.toLowerCase());
      for (const [k, g] of pool.groups.entries()) {
        if (!groups.has(g))
          issue(["loadBalancers", i, "pools", j, "groups", k], `no group ${g} in the topology`);
      }
    }
  }
  const rules = new Set<string>();
  for (const [i, r] of (t.alertRules ?? []).entries()) {
    const name = (typeof r === "string" ? r : r.name).toLowerCase();
    if (rules.has(name)) issue(["alertRules", i], `duplicate alert rule ${name}`);
    rules.add(name);
  }
}
