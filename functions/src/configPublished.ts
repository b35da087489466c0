import { BooleanText, ClusterName } from "@quiesce/protocol";
import type { Policies } from "@quiesce/protocol/policy";
import type { z } from "zod";
import { z as zod } from "zod";

/**
 * Settings of the events Azure publishes off the VM (docs/control-plane.md, "Published events"):
 * Event Grid deliveries and the Resource Graph backstop, both preview on Azure's side and opt-in
 * there (scheduledEventsPolicy). Kept apart from config.ts, which they extend. The setting
 * QUIESCE_CONTROL_PLANE_EVENTS keeps its name until an alias exists (docs/coordinator.md,
 * "Glossary").
 */
export const publishedEventSettings = {
  /**
   * Take Event Grid deliveries (the `maintenanceEvents` function; locally the webhook) and run
   * the Resource Graph backstop. Needs QUIESCE_CONTROL_PLANE (the backstop reads through ARM).
   */
  QUIESCE_CONTROL_PLANE_EVENTS: BooleanText.default(false),
  /** The Resource Graph backstop runs at most this often per instance; 0 turns it off. */
  QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: zod.coerce
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(300),
  /** Subscriptions the backstop queries, comma-separated; empty: those of the clusters' VMs and azureResources. */
  QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS: zod
    .string()
    .default("")
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x.length > 0),
    )
    .pipe(
      zod.array(zod.string().regex(/^[0-9A-Fa-f-]{36}$/, "a subscription id (GUID)")).max(1000),
    ),
  /**
   * Secret an Event Grid webhook subscription carries as `?code=` (the HTTP route
   * `maintenance/eventgrid`, for hosts without the Event Grid trigger: the local host). Unset:
   * the route answers 404. The Functions Event Grid trigger needs none (the host's system key).
   */
  QUIESCE_EVENT_GRID_KEY: zod.string().min(16, "must be at least 16 characters").optional(),
  /**
   * Where an event goes that no cluster owns (no relay of it, no cluster's azureResources):
   * shown and alerted on there. `off`: such events are dropped (and counted as unclaimed).
   */
  QUIESCE_UNCLAIMED_CLUSTER: ClusterName.default("unclaimed"),
};

interface EventSettings {
  QUIESCE_CONTROL_PLANE: boolean;
  QUIESCE_CONTROL_PLANE_EVENTS: boolean;
  QUIESCE_POLICY?: Policies;
}

/** The checks that tie these settings to the control plane and the policies. */
export function checkPublishedEvents(
  s: EventSettings,
  ctx: z.RefinementCtx,
  policies: Iterable<[string, Policies["default"]]>,
): void {
  if (s.QUIESCE_CONTROL_PLANE_EVENTS && !s.QUIESCE_CONTROL_PLANE)
    ctx.addIssue({
      code: "custom",
      path: ["QUIESCE_CONTROL_PLANE_EVENTS"],
      message:
        "Published events (Event Grid and the Resource Graph backstop) act through Azure Resource Manager: set QUIESCE_CONTROL_PLANE=true too",
    });
  const owners = new Map<string, string>();
  for (const [name, p] of policies) {
    if (p.agentless.enabled && !s.QUIESCE_CONTROL_PLANE)
      ctx.addIssue({
        code: "custom",
        path: ["QUIESCE_POLICY"],
        message: `${name} turns on agentless, which approves through Azure Resource Manager: set QUIESCE_CONTROL_PLANE=true or turn it off`,
      });
    if (name === "the default policy") {
      // Every cluster inherits the default: resources named there would belong to all of them.
      if (p.azureResources.length > 0)
        ctx.addIssue({
          code: "custom",
          path: ["QUIESCE_POLICY"],
          message:
            "azureResources names what one cluster owns: set it in a cluster's policy, not the default",
        });
      continue;
    }
    for (const id of p.azureResources) {
      const k = id.toLowerCase();
      const other = owners.get(k);
      if (other && other !== name)
        ctx.addIssue({
          code: "custom",
          path: ["QUIESCE_POLICY"],
          message: `${id} is in the azureResources of both ${other} and ${name}: an Azure resource belongs to one cluster`,
        });
      owners.set(k, name);
    }
  }
}

/**
 * The unclaimed cluster's policy (QUIESCE_UNCLAIMED_CLUSTER): its own if the operator wrote one,
 * but never one that approves. Its events belong to no cluster the operator described, so
 * nothing is known of what their VMs serve: no auto-approval, no control-plane approval, no
 * agentless drain or load-balancer change. It shows, counts and alerts; NotBefore does the rest.
 */
export function observeOnly(policies: Policies, cluster: string): Policies {
  if (cluster === "off") return policies;
  const base = policies.clusters.get(cluster) ?? policies.default;
  const watched: Policies["default"] = {
    ...base,
    autoApprove: [],
    unmanagedVms: "block",
    onDrainOverdue: "wait",
    controlPlaneApproval: { ...base.controlPlaneApproval, mode: "off" },
    agentless: { ...base.agentless, enabled: false },
    loadBalancerDrain: { ...base.loadBalancerDrain, enabled: false },
  };
  return { ...policies, clusters: new Map([...policies.clusters, [cluster, watched]]) };
}

/** Every policy in force, named as an operator would read it in an error. */
export function* allPolicies(p: Policies): Iterable<[string, Policies["default"]]> {
  yield ["the default policy", p.default];
  for (const [cluster, policy] of p.clusters) yield [`cluster ${cluster}'s policy`, policy];
}
