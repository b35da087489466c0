import { describe, expect, it } from "vitest";
import { defaultTopology, generateTopology } from "./topologies";
import { expandTopology, Topology } from "./topology";

describe("topologies", () => {
  it("the demo default has two availability sets of 4 VMs and one placement group of 6", () => {
    const r = expandTopology(defaultTopology());
    if (!r.ok) throw new Error(r.error);
    expect(Object.values(r.value.groups).map((g) => [g.kind, g.vms.length])).toEqual([
      ["availabilitySet", 4],
      ["availabilitySet", 4],
      ["scaleSetPlacementGroup", 6],
    ]);
  });

  it("generates N VMs in groups, alternating availability sets and placement groups", () => {
    for (const n of [1, 100, 1000, 1005]) {
      const r = expandTopology(generateTopology(n));
      if (!r.ok) throw new Error(r.error);
      expect(Object.keys(r.value.vms)).toHaveLength(n);
      expect(Object.values(r.value.groups).every((g) => g.vms.length <= 10)).toBe(true);
    }
    const kinds = generateTopology(40).groups.map((g) => g.kind);
    expect(kinds).toEqual([
      "availabilitySet",
      "scaleSetPlacementGroup",
      "availabilitySet",
      "scaleSetPlacementGroup",
    ]);
  });

  it("gives the same vmIds and placement group ids for the same topology", () => {
    const a = expandTopology(defaultTopology());
    const b = expandTopology(defaultTopology());
    expect(a).toEqual(b);
  });

  it("rejects names that are not one URL path segment", () => {
    expect(Topology.safeParse({ groups: [{ kind: "standalone", vms: ["a/b"] }] }).success).toBe(
      false,
    );
    expect(Topology.safeParse({ groups: [{ kind: "standalone", vms: ["-a"] }] }).success).toBe(
      false,
    );
    expect(Topology.safeParse({ groups: [] }).success).toBe(false);
  });
});

describe("load balancers and alert rules", () => {
  const groups = [
    { kind: "availabilitySet", name: "avset-web", vms: 2 },
    { kind: "standalone", vms: ["jumpbox"] },
  ] as const;

  it("take defaults, and may name availability sets, placement groups and standalone VMs", () => {
    const t = Topology.parse({
      groups,
      loadBalancers: [{ name: "lb", pools: [{ name: "p", groups: ["avset-web", "jumpbox"] }] }],
      alertRules: ["errors", { name: "latency" }],
    });
    expect(t.loadBalancers?.[0]).toEqual({
      name: "lb",
      requestsPerSecond: 10,
      probeSeconds: 15,
      pools: [{ name: "p", groups: ["avset-web", "jumpbox"], adminState: "None" }],
    });
    expect(t.alertRules).toEqual(["errors", { name: "latency", severity: "Sev3" }]);
  });

  it("refuse a pool naming a group that does not exist, and duplicate names", () => {
    const bad = Topology.safeParse({
      groups,
      loadBalancers: [
        { name: "lb", pools: [{ name: "p", groups: ["avset-nope"] }] },
        {
          name: "LB",
          pools: [
            { name: "p", groups: ["jumpbox"] },
            { name: "P", groups: ["jumpbox"] },
          ],
        },
      ],
      alertRules: ["errors", "Errors"],
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.message)).toEqual([
      "no group avset-nope in the topology",
      "duplicate load balancer LB",
      "duplicate pool P",
      "duplicate alert rule errors",
    ]);
  });
});

describe("the example topology file", () => {
  it("parses and expands", async () => {
    const { readFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const json: unknown = JSON.parse(
      await readFile(join(__dirname, "../../examples/topology.json"), "utf8"),
    );
    const r = expandTopology(Topology.parse(json));
    if (!r.ok) throw new Error(r.error);
    expect(Object.keys(r.value.vms)).toEqual([
      "web-0",
      "web-1",
      "web-2",
      "vmss-api_0",
      "vmss-api_1",
      "vmss-api_2",
      "vmss-api_3",
      "jumpbox",
    ]);
  });
});
