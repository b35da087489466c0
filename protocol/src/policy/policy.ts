import { z } from "zod";
import { KNOWN_EVENT_TYPES } from "../imds/scheduledEvents";
import { ClusterName } from "../names";
import { HttpsOrLoopbackUrl } from "../url";
import { Agentless, AzureScheduledEventsPolicy, ComputeScopeId } from "./agentless";
import { GuestPatching } from "./guestPatching";
import { MaintenanceSignal } from "./maintenanceSignal";
import { MaintenanceWindows, maintenanceWindowsProblems } from "./maintenanceWindows";

/**
 * Per-cluster policy. Every default is the safe choice: nothing is approved early unless every
 * VM named in `Resources` confirmed its drain, and Azure's `NotBefore` stays the backstop.
 */

/** Azure's `EventSource` values (scheduled-events-overview: "Platform" or "User"). */
export const EVENT_SOURCES = ["Platform", "User"] as const;

/**
 * One of a fixed list, matched exactly as Azure writes it: anything else is refused naming the
 * list, since a rule naming "Freez" would silently never match. Typed as a string still, like
 * what Azure sends, which it is compared with (and which may be a type added since).
 */
const oneOf = (values: readonly string[], what: string) =>
  z.string().refine((v) => values.includes(v), {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not ${what}: one of ${values.join(", ")} (case as written)`,
  });

export const AutoApproveRule = z.strictObject({
  /** Shown in the status API as the rule that fired, e.g. "policy:user-events". */
  name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "rule name: 1-64 letters, digits, . _ -"),
  /** Azure's event types (KNOWN_EVENT_TYPES): one Azure adds later needs a release naming it. */
  eventTypes: z.array(oneOf(KNOWN_EVENT_TYPES, "an event type")).min(1).optional(),
  eventSources: z.array(oneOf(EVENT_SOURCES, "an event source")).min(1).optional(),
  /** Matches only when DurationInSeconds is known (>= 0) and at most this. */
  maxDurationInSeconds: z.number().int().nonnegative().optional(),
});
export type AutoApproveRule = z.infer<typeof AutoApproveRule>;

/** What an operator can be told about; one message per (event or subject, kind), never per VM. */
export const NOTIFICATION_KINDS = [
  "observed",
  /** An advisory event (a Spot rebalance recommendation) first seen: news, nothing to approve. */
  "rebalanceRecommended",
  "approved",
  "started",
  "completed",
  "expiredAtNotBefore",
  "cancelled",
  "unplanned",
  "drainFailed",
  "blocked",
  "relaySilent",
  "groupUncovered",
  "vmNeverRegistered",
  "imdsFailing",
  "attestationFailed",
  /** A group relies on approval through ARM in a region where Azure does not offer it. */
  "controlPlaneUnavailable",
  /** An Update Manager run cancelled for an event in maintenance, or one that could not be (guestPatching.ts). */
  "guestPatching",
] as const;
export const NotificationKind = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof NotificationKind>;

export const ATTESTATION_MODES = ["off", "prefer", "require"] as const;
export const AttestationMode = z.enum(ATTESTATION_MODES);
export type AttestationMode = z.infer<typeof AttestationMode>;

export const NOTIFICATION_SINKS = ["teams", "slack", "webhook"] as const;
export const NotificationSink = z.enum(NOTIFICATION_SINKS);
export type NotificationSink = z.infer<typeof NotificationSink>;

/** Which transitions and alerts a cluster's operators hear about, and where (docs/operations.md). */
export const NotifyPolicy = z.strictObject({
  on: z.array(NotificationKind).default([...NOTIFICATION_KINDS]),
  /** Sinks used for this cluster, among those configured in app settings. */
  sinks: z.array(NotificationSink).default([...NOTIFICATION_SINKS]),
  /** An event not approved this long after first sight, while something blocks it. */
  blockedAfterMinutes: z.number().int().min(1).max(1440).default(20),
  /**
   * A relay silent this long, and no longer live, is alerted on: an idle relay is live for
   * `idleLivenessTimeoutSeconds` (32 min by default), so that is when an idle one is alerted on.
   * Scheduled Events stops serving a VM that made no call for 24 h, so the ceiling stays well
   * below that.
   */
  silentRelayMinutes: z.number().int().min(1).max(720).default(10),
  /** A relay reporting this many failed IMDS reads in a row is alerted on. */
  imdsFailuresBeforeAlert: z.number().int().min(1).max(100_000).default(30),
});
export type NotifyPolicy = z.infer<typeof NotifyPolicy>;

/**
 * Approval through Azure Resource Manager when no relay can (docs/control-plane.md): on by
 * default, since it fires only where a relay would have been allowed to approve (invariant 1,
 * the gates, the budget, the lease) and nobody did, so the alternative is waiting for NotBefore
 * with every affected VM already drained. Inert unless the app's QUIESCE_CONTROL_PLANE is set.
 */
export const ControlPlaneApproval = z.strictObject({
  /** "fallback": approve through ARM when no relay took the lease in time; "off": never. */
  mode: z.enum(["fallback", "off"]).default("fallback"),
  /** Ready this long with no relay holding the lease: the control plane takes it. */
  afterSeconds: z.number().int().min(0).max(3600).default(60),
  /** The control plane's own lease: long enough for ARM's retries (Retry-After) to finish. */
  leaseSeconds: z.number().int().min(10).max(600).default(90),
  /** Acknowledge attempts per event (a lease that ran out unconfirmed is one) before giving up. */
  maxAttempts: z.number().int().min(1).max(10).default(3),
});
export type ControlPlaneApproval = z.infer<typeof ControlPlaneApproval>;

/** Take affected VMs out of their Azure Load Balancers before they count as drained. Opt-in. */
export const LoadBalancerDrain = z.strictObject({
  enabled: z.boolean().default(false),
  /** After admin state Down: how long existing connections get to finish. */
  settleSeconds: z.number().int().min(0).max(3600).default(30),
});
export type LoadBalancerDrain = z.infer<typeof LoadBalancerDrain>;

const GateName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "gate name: 1-64 letters, digits, . _ -");

/** An ARM resource id of an alert rule, e.g. /subscriptions/…/providers/Microsoft.Insights/metricAlerts/x */
const AlertRuleId = z
  .string()
  .max(1024)
  .regex(
    /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/[^/]+\/[^/]+\/[^/]+$/i,
    "an alert rule's ARM resource id",
  );

/** A check that must pass before any approval, by a relay or the control plane. */
export const Gate = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("http"),
    name: GateName,
    url: HttpsOrLoopbackUrl,
    expectStatus: z.number().int().min(100).max(599).default(200),
    timeoutSeconds: z.number().min(0.5).max(30).default(5),
    /** Send a bearer token of the app's managed identity for this scope (e.g. api://x/.default). */
    bearerScope: z.string().min(1).max(512).optional(),
  }),
  z.strictObject({
    kind: z.literal("liveRelays"),
    name: GateName,
    /** Live relays not draining and not named by the event, that must remain. */
    min: z.number().int().min(1).max(100_000),
    /** Counted over the whole cluster, or in each group (availability set / placement group) the event touches. */
    per: z.enum(["cluster", "group"]).default("cluster"),
  }),
  z.strictObject({
    kind: z.literal("alertRule"),
    name: GateName,
    /** Must not be firing (an Azure Monitor alert of it Fired and not Closed). */
    alertRuleId: AlertRuleId,
  }),
]);
export type Gate = z.infer<typeof Gate>;

export const Policy = z.strictObject({
  /** Events matching a rule are approved without waiting for drains. Default: none. */
  autoApprove: z.array(AutoApproveRule).max(32).default([]),
  /** A failed drain hook: "block" waits for NotBefore (default), "proceed" counts it as drained. */
  onDrainFailure: z.enum(["block", "proceed"]).default("block"),
  /**
   * A VM named in Resources with no live relay (never registered, or heartbeat lost): "block"
   * (default) waits for NotBefore; "ignore" approves without it.
   */
  unmanagedVms: z.enum(["block", "ignore"]).default("block"),
  /** Events approved and not yet recovered, per cluster, across availability sets and groups. */
  maxEventsInFlight: z.number().int().min(1).max(1000).default(1),
  /**
   * Drains still unfinished this long before NotBefore are overdue: "wait" (default) keeps
   * waiting for NotBefore, "proceed" approves without them.
   */
  drainDeadlineSecondsBeforeNotBefore: z.number().int().nonnegative().default(60),
  onDrainOverdue: z.enum(["wait", "proceed"]).default("wait"),
  /** How long an elected relay holds the approval lease before another is elected. */
  approvalLeaseSeconds: z.number().int().min(5).max(600).default(30),
  /**
   * A relay that sees events (and so reports every `activeReportSeconds`, or, when none names its
   * VM, every 30 s at most a third of this) not heard from for this long is not live; nor is one not heard from for this long since an event naming its VM was
   * first seen (liveness.ts: every relay of the group reports an event within a second).
   */
  livenessTimeoutSeconds: z.number().int().min(10).max(3600).default(90),
  /**
   * An idle relay (no events in its document) not heard from for this long is not live: what
   * coverage and the silent-relay alert use. Keep it above three idle heartbeats; the default,
   * 32 min, puts the `lastSeenAt` write (every third of it) on every third heartbeat.
   */
  idleLivenessTimeoutSeconds: z.number().int().min(10).max(86_400).default(1920),
  /**
   * Report interval the coordinator asks for while an event is active / when idle. Idle
   * heartbeats are what an idle VM costs (an execution each): 5 min keeps it under $0.02 per
   * VM-month (docs/deploy.md), and events never wait for one (a relay reports every document
   * change at once). Relays clamp what they are asked to 1 s-300 s.
   */
  activeReportSeconds: z.number().min(0.5).max(60).default(5),
  idleReportSeconds: z.number().min(5).max(600).default(300),
  /** A recover hook not confirmed this long after the event ended stops holding the budget. */
  recoverTimeoutSeconds: z.number().int().min(30).max(86_400).default(1800),
  /** Approval through Azure Resource Manager when no relay can (docs/control-plane.md). */
  controlPlaneApproval: ControlPlaneApproval.default(ControlPlaneApproval.parse({})),
  /** Admin state Down on the VM's load balancers before it counts as drained (docs/control-plane.md). */
  loadBalancerDrain: LoadBalancerDrain.default(LoadBalancerDrain.parse({})),
  /** Every gate must pass before any approval; none by default (docs/control-plane.md). */
  gates: z
    .array(Gate)
    .max(16)
    .default([])
    .refine((gs) => new Set(gs.map((g) => g.name)).size === gs.length, "gate names must be unique"),
  /**
   * Bind reports to their VM with the IMDS attested document (docs/auth.md, "Attestation"):
   * "off", "prefer" (bind when it verifies, show and alert where it does not) or "require"
   * (readiness only from the relay bound to the VM). Absent: the app's QUIESCE_ATTESTATION.
   */
  attestation: AttestationMode.optional(),
  /** Notifications and coverage alerts (docs/operations.md). */
  notify: NotifyPolicy.default(NotifyPolicy.parse({})),
  /**
   * Availability sets, scale sets and VMs (ARM ids) whose published events (Event Grid, Resource
   * Graph) belong to this cluster, beyond those its relays' VMs tell: the way for a cluster to own
   * a group where no relay runs (docs/control-plane.md).
   */
  azureResources: z.array(ComputeScopeId).max(256).default([]),
  /** The coordinator drains and approves for VMs without a relay (docs/control-plane.md). */
  agentless: Agentless.default(Agentless.parse({})),
  /** What the operator set in Azure's scheduledEventsPolicy for this cluster's groups. */
  scheduledEventsPolicy: AzureScheduledEventsPolicy.default({}),
  /** Update Manager patch runs: a gate, and cancelling a run while an event is active (guestPatching.ts). */
  guestPatching: GuestPatching.default(GuestPatching.parse({})),
  /** Alert processing rules kept scoped to the VMs under maintenance (maintenanceSignal.ts). */
  maintenanceSignal: MaintenanceSignal.default(MaintenanceSignal.parse({})),
  /** When drains may start (maintenanceWindows.ts); absent: at once. */
  maintenanceWindows: MaintenanceWindows.optional(),
});
export type Policy = z.infer<typeof Policy>;
export type PolicyInput = z.input<typeof Policy>;

export const DEFAULT_POLICY: Policy = Policy.parse({});

/**
 * An override: any subset of the policy's fields, with no defaults of its own. Built from the
 * policy's own field schemas (defaults unwrapped), so the two can never disagree on a field.
 * (A `Policy.partial()` would not do: zod still fills every `.default()` of a partial, so an
 * override naming one field would silently reset all the others to the built-in defaults.)
 */
export type PolicyOverride = Partial<Policy>;
export const PolicyOverride = z.strictObject(
  Object.fromEntries(
    Object.entries(Policy.shape).map(([field, schema]) => [
      field,
      (schema instanceof z.ZodDefault ? schema.unwrap() : schema).optional(),
    ]),
  ),
) as unknown as z.ZodType<PolicyOverride>;

/** The policies in force, resolved once when the settings are read (no parsing per report). */
export interface Policies {
  /** Built-in defaults with the operator's `default` override applied. */
  default: Policy;
  /** Clusters with an override: `default`, then the cluster's override on top. */
  clusters: ReadonlyMap<string, Policy>;
}

/**
 * QUIESCE_POLICY: `{"default": {...}, "clusters": {"name": {...}}}`. Each cluster's override is
 * applied on top of the operator's default, which is applied on top of the built-in defaults.
 */
export const PolicySet = z
  .strictObject({
    default: PolicyOverride.default({}),
    clusters: z.record(ClusterName, PolicyOverride).default({}),
  })
  .transform((set, ctx): Policies => {
    const base: Policy = { ...DEFAULT_POLICY, ...definedFields(set.default) };
    const clusters = new Map<string, Policy>();
    for (const [cluster, override] of Object.entries(set.clusters))
      clusters.set(cluster, { ...base, ...definedFields(override) });
    // Across fields, once merged: an override may change either side (maintenanceWindows.ts).
    for (const [path, message] of maintenanceWindowsProblems(base, clusters))
      ctx.issues.push({ code: "custom", message, input: set, path });
    return { default: base, clusters };
  });
export type PolicySet = z.input<typeof PolicySet>;

export const DEFAULT_POLICIES: Policies = PolicySet.parse({});

export function policyFor(policies: Policies, cluster: string): Policy {
  return policies.clusters.get(cluster) ?? policies.default;
}

/** `{a: undefined}` must not clear a default when spread. */
function definedFields(o: PolicyOverride): PolicyOverride {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
