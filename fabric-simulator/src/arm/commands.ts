import { z } from "zod";
import { AdminState, Severity } from "../topology/armTopology";

/**
 * The control inputs of the loopback ARM; the HTTP control routes and the in-process API parse
 * with the same schemas, as the fabric's own commands do.
 */

const Name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, "a name: 1-80 letters, digits, '.', '_' or '-'");
const Id = z.string().min(1).max(128);
/** An ARM id (a scope): `/subscriptions/...`, or `/` for everything. */
const ArmIdText = z
  .string()
  .max(1024)
  .regex(/^\/[^\s?#]*$/, "an ARM resource id starting with '/'");

export const Grant = z.strictObject({
  principalId: Id,
  /** Default: the simulated resource group. */
  scope: ArmIdText.optional(),
  role: z.string().min(1).max(64).default("Contributor"),
  /** Allowed actions, `*` as wildcard. Default: every action. */
  actions: z.array(z.string().min(1).max(256)).min(1).max(100).default(["*"]),
});
export type GrantInput = z.input<typeof Grant>;

export const Revoke = z.strictObject({
  principalId: Id,
  /** Only the assignments at exactly this scope; every one of the principal's when absent. */
  scope: ArmIdText.optional(),
});
export type RevokeInput = z.input<typeof Revoke>;

/** What an injected ARM fault may answer; the world (types.ts) keeps the parsed fault. */
export const ARM_FAULT_STATUSES = [401, 403, 404, 409, 429, 500, 503] as const;
export type ArmFaultStatus = (typeof ARM_FAULT_STATUSES)[number];

export const InjectArmFault = z
  .strictObject({
    status: z.literal(ARM_FAULT_STATUSES),
    /** How many matching requests get it. */
    count: z.number().int().min(1).max(1_000_000).default(1),
    /** Only requests whose path contains this (case-insensitively). */
    pathContains: z.string().min(1).max(1024).optional(),
    /** Only requests with this method. */
    method: z.enum(["GET", "PUT", "POST", "PATCH", "DELETE"]).optional(),
    /** 429: the Retry-After header (seconds); default 1. */
    retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  })
  .refine((f) => f.retryAfterSeconds === undefined || f.status === 429, {
    message: "retryAfterSeconds goes with status 429",
  });
export type ArmFaultInput = z.input<typeof InjectArmFault>;

export const RegisterIdentity = z.strictObject({
  /** The user-assigned identity's resource name. */
  name: Name,
  /** Generated (stable per name) when absent. */
  clientId: Id.optional(),
  principalId: Id.optional(),
});
export type RegisterIdentityInput = z.input<typeof RegisterIdentity>;

export const SetAdminState = z.strictObject({
  loadBalancer: Name,
  pool: Name,
  vm: Name,
  adminState: AdminState,
});
export type SetAdminStateInput = z.input<typeof SetAdminState>;

export const FireAlert = z.strictObject({
  rule: Name,
  /** The rule's own severity when absent. */
  severity: Severity.optional(),
  description: z.string().max(1024).optional(),
});
export type FireAlertInput = z.input<typeof FireAlert>;

export const ResolveAlert = z.strictObject({ rule: Name });

/**
 * How the Maintenance RP answers acknowledges (test/contracts/fixtures/arm-acknowledge): in a
 * region where it does not acknowledge (405 NotImplemented; `supportedInRegion: false` for every
 * region, `unsupportedRegions` for the regions named, compared without case, against the
 * `location` of the scope's VMs), not knowing any event (its copy lags IMDS's: every id is
 * InvalidScheduledEventId), and whether an unknown id on the single acknowledge answers 404 or 207
 * (both are in the Azure CLI's response tests).
 */
export const MaintenanceBehaviour = z.strictObject({
  supportedInRegion: z.boolean().default(true),
  unsupportedRegions: z.array(z.string().min(1).max(64)).max(100).default([]),
  knowsEvents: z.boolean().default(true),
  unknownEventStatus: z.literal([404, 207]).default(404),
});
export type MaintenanceBehaviour = z.infer<typeof MaintenanceBehaviour>;
export type MaintenanceBehaviourInput = z.input<typeof MaintenanceBehaviour>;
