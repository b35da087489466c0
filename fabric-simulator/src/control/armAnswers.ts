import { z } from "zod";
import type { ManagedIdentity } from "../arm/identity";
import type { LoadBalancerView } from "../arm/loadBalancers";
import type { AlertInstance, ArmFault, ArmRequest, RoleAssignment } from "../arm/types";
import type { HealthEndpoint } from "../health/gates";

/**
 * The answers of the loopback ARM's control routes, as FabricControlClient reads them; each typed
 * with the simulator's own type so the two cannot drift apart unnoticed.
 */

const Instant = z.object({ simMs: z.number(), realMs: z.number() });

export const ArmInfoAnswer = z.object({
  armUrl: z.string(),
  identity: z.object({
    endpoint: z.string(),
    header: z.string(),
    principalId: z.string(),
    clientId: z.string(),
  }),
  tenantId: z.string(),
  subscriptionId: z.string(),
  resourceGroupName: z.string(),
});

export const ArmRequestAnswer: z.ZodType<ArmRequest> = z.object({
  seq: z.number(),
  method: z.string(),
  path: z.string(),
  apiVersion: z.string().nullable(),
  principalId: z.string().nullable(),
  status: z.number(),
  fault: z.boolean().optional(),
  at: Instant,
});

export const ArmFaultAnswer: z.ZodType<ArmFault> = z.object({
  id: z.number(),
  status: z.literal([401, 403, 404, 409, 429, 500, 503]),
  remaining: z.number(),
  pathContains: z.string().optional(),
  method: z.string().optional(),
  retryAfterSeconds: z.number().optional(),
  served: z.number(),
});

export const RoleAssignmentAnswer: z.ZodType<RoleAssignment> = z.object({
  id: z.string(),
  principalId: z.string(),
  scope: z.string(),
  role: z.string(),
  actions: z.array(z.string()),
});

export const IdentityAnswer: z.ZodType<ManagedIdentity> = z.object({
  kind: z.enum(["systemAssigned", "userAssigned"]),
  name: z.string(),
  principalId: z.string(),
  clientId: z.string(),
  resourceId: z.string().optional(),
});

const AdminState = z.enum(["None", "Up", "Down"]);

export const LoadBalancerAnswer: z.ZodType<LoadBalancerView> = z.object({
  name: z.string(),
  id: z.string(),
  requestsPerSecond: z.number(),
  probeSeconds: z.number(),
  total: z.number(),
  unrouted: z.number(),
  pools: z.array(
    z.object({
      name: z.string(),
      id: z.string(),
      etag: z.string(),
      backends: z.array(
        z.object({
          vm: z.string(),
          address: z.string(),
          ipConfigurationId: z.string(),
          adminState: AdminState,
          routed: z.number(),
          dropped: z.number(),
        }),
      ),
    }),
  ),
});

export const AlertAnswer: z.ZodType<AlertInstance> = z.object({
  alertId: z.string(),
  rule: z.string(),
  severity: z.string(),
  description: z.string().optional(),
  monitorCondition: z.enum(["Fired", "Resolved"]),
  alertState: z.enum(["New", "Acknowledged", "Closed"]),
  startedAtMs: z.number(),
  modifiedAtMs: z.number(),
  resolvedAtMs: z.number().optional(),
});

export const HealthAnswer: z.ZodType<HealthEndpoint> = z.object({
  name: z.string(),
  status: z.number(),
  probes: z.number(),
});

export const RevokedAnswer = z.object({ revoked: z.number() });
