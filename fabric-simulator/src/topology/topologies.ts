import { type GroupSpec, Topology } from "./topology";

/** Ready-made topologies: the demo cluster, and generated ones for benchmarks. */

/**
 * The demo cluster: two availability sets of 4 VMs and one scale-set placement group of 6; the web
 * set behind load balancer `lb-web` (pool `web`), and one alert rule the demo can fire.
 */
export function defaultTopology(): Topology {
  return Topology.parse({
    groups: [
      { kind: "availabilitySet", name: "avset-web", vmNamePrefix: "web-", vms: 4 },
      { kind: "availabilitySet", name: "avset-db", vmNamePrefix: "db-", vms: 4 },
      { kind: "scaleSetPlacementGroup", name: "vmss-api-pg0", scaleSetName: "vmss-api", vms: 6 },
    ],
    loadBalancers: [{ name: "lb-web", pools: [{ name: "web", groups: ["avset-web"] }] }],
    alertRules: ["high-error-rate"],
  });
}

/**
 * `count` VMs for benchmarks, in groups of `groupSize` alternating availability sets and scale-set
 * placement groups (the last group takes the remainder).
 */
export function generateTopology(count: number, groupSize = 10): Topology {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError("count must be a positive integer");
  if (!Number.isInteger(groupSize) || groupSize < 1) {
    throw new RangeError("groupSize must be a positive integer");
  }
  const groups: GroupSpec[] = [];
  for (let made = 0, g = 0; made < count; g++) {
    const n = Math.min(groupSize, count - made);
    const id = String(g).padStart(3, "0");
    groups.push(
      g % 2 === 0
        ? { kind: "availabilitySet", name: `avset-${id}`, vmNamePrefix: `as${id}-vm-`, vms: n }
        : {
            kind: "scaleSetPlacementGroup",
            name: `vmss-${id}-pg0`,
            scaleSetName: `vmss-${id}`,
            vms: n,
          },
    );
    made += n;
  }
  return Topology.parse({ groups });
}
