import {
  AbsoluteUrl,
  BooleanText,
  describeSettingProblems,
  HttpsOrLoopbackUrl,
  misspelledSettings,
  SecretHttpsOrLoopbackUrl,
  settingProblems,
} from "@quiesce/protocol";
import {
  AttestationMode,
  DEFAULT_POLICIES,
  type Policies,
  type Policy,
  PolicySet,
} from "@quiesce/protocol/policy";
import { z } from "zod";
import { armUses } from "./configArmUses";
import { changeSafetySettings, checkChangeSafety } from "./configChangeSafety";
import * as events from "./configPublished";
import { subscriptionProblems, subscriptionSettings } from "./configSubscriptions";
import { json, SharedRelayIdentities, TimerSchedule } from "./configValues";
import { StorageConnectionString } from "./storageConnection";

/**
 * The coordinator's app settings. These names are exactly the Function app's settings in
 * infra/ (a test keeps the two in step); Functions host settings (AzureWebJobs*, FUNCTIONS_*,
 * APPLICATIONINSIGHTS_*) are the host's and are not read here.
 */

/**
 * A webhook URL: https, or plain http only to a loopback receiver (tests, `npm start`). The URL
 * holds the webhook's key, so an error never quotes it.
 */
const webhookUrl = SecretHttpsOrLoopbackUrl;

/** Every setting but the authentication ones; a URL given a credential is HttpsOrLoopbackUrl. */
const common = {
  /** Table Storage connection string (Azurite, or key-based access). */
  QUIESCE_STORAGE_CONNECTION_STRING: StorageConnectionString.optional(),
  /** Table endpoint reached with the app's managed identity, e.g. https://acct.table.core.windows.net */
  QUIESCE_TABLE_ENDPOINT: HttpsOrLoopbackUrl.optional(),
  /** Client id of the app's user-assigned identity (storage, Graph); system-assigned when absent. */
  QUIESCE_STORAGE_CLIENT_ID: z.string().min(1).optional(),
  /** Prefix of the table names (members, events, readiness, history, outbox). */
  QUIESCE_TABLE_PREFIX: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9]{0,40}$/, "letters and digits, starting with a letter")
    .default("quiesce"),
  /** Override of the signing keys URL (defaults to the tenant's published keys). */
  QUIESCE_ENTRA_JWKS_URL: HttpsOrLoopbackUrl.optional(),
  /** Override of accepted issuers, comma-separated (defaults to the tenant's v1 and v2 issuers). */
  QUIESCE_ENTRA_ISSUERS: z.string().min(1).optional(),
  /** Microsoft Graph endpoint used to find the VM behind a relay's managed identity. */
  QUIESCE_GRAPH_URL: HttpsOrLoopbackUrl.default("https://graph.microsoft.com"),
  /** App role a relay's identity must hold. */
  QUIESCE_RELAY_ROLE: z.string().min(1).default("Quiesce.Relay"),
  /** App role for the status API (read). */
  QUIESCE_READER_ROLE: z.string().min(1).default("Quiesce.Reader"),
  /** App role for hold / release / force-approve. */
  QUIESCE_OPERATOR_ROLE: z.string().min(1).default("Quiesce.Operator"),
  /**
   * Policy JSON: {"default": {...}, "clusters": {"name": {...}}}; see README. Resolved here,
   * once, into one complete policy per cluster.
   */
  QUIESCE_POLICY: json(PolicySet).default(DEFAULT_POLICIES),
  /** Largest accepted report body. */
  QUIESCE_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(4_194_304).default(262_144),
  /** NCRONTAB schedule of the sweep timer (Functions reads it as %QUIESCE_SWEEP_SCHEDULE%). */
  QUIESCE_SWEEP_SCHEDULE: TimerSchedule.default("*/10 * * * * *"),
  /** Ended events (and their readiness rows) are deleted after this many days. */
  QUIESCE_EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(14),
  /** History rows are deleted after this many days. */
  QUIESCE_HISTORY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Secret (Key Vault reference in Azure): Teams Workflows webhook URL for notifications. */
  QUIESCE_TEAMS_WEBHOOK_URL: webhookUrl.optional(),
  /** Secret (Key Vault reference in Azure): Slack incoming webhook URL. */
  QUIESCE_SLACK_WEBHOOK_URL: webhookUrl.optional(),
  /** Secret (Key Vault reference in Azure): generic JSON webhook URL, signed with the key below. */
  QUIESCE_WEBHOOK_URL: webhookUrl.optional(),
  /** Secret (Key Vault reference in Azure): HMAC-SHA256 key of the generic webhook's signature. */
  QUIESCE_WEBHOOK_SECRET: z.string().min(32).optional(),
  /**
   * Not a secret: the status page's address (e.g. https://<app>.azurewebsites.net/api/ui), so Teams
   * and Slack messages link to it; absent, they carry no link.
   */
  QUIESCE_STATUS_PAGE_URL: HttpsOrLoopbackUrl.optional(),
  /** A notification still undelivered this long after it was queued is dropped and counted. */
  QUIESCE_NOTIFY_DEADLINE_MINUTES: z.coerce.number().int().min(1).max(1440).default(60),
  /**
   * How long a write may stay volatile in the state store: a relay's hook state is listed in
   * `hooksStored` only once stored this long. 0 for Azure Table Storage, where a 2xx is durable;
   * the local host defaults it to 6 for Azurite, which saves to disk every 5 s.
   */
  QUIESCE_STORAGE_SETTLE_SECONDS: z.coerce.number().min(0).max(300).default(0),
  /**
   * Let the coordinator act through Azure Resource Manager with its managed identity: approve
   * events no relay can, take VMs out of load balancers, evaluate alert-rule gates (docs/control-plane.md).
   * Off unless set: it needs the role infra/ grants on the resource groups the operator names.
   */
  QUIESCE_CONTROL_PLANE: BooleanText.default(false),
  /** Azure Resource Manager endpoint (sovereign clouds: e.g. https://management.usgovcloudapi.net). */
  QUIESCE_ARM_ENDPOINT: HttpsOrLoopbackUrl.default("https://management.azure.com"),
  /**
   * Audience of the app's ARM tokens when it is not the endpoint itself (a proxy in front of
   * ARM, or the fabric simulator's loopback ARM, which expects https://management.azure.com).
   */
  QUIESCE_ARM_AUDIENCE: AbsoluteUrl.optional(),
  /**
   * User-assigned identities that relays of whole scale sets share (an AKS node pool's kubelet
   * identity), with the scale sets each may report for: {"<identity resource id>":
   * ["<scale set resource id>", ...]}. Such a relay is bound to its scale set, not its VM
   * (docs/auth.md, docs/aks.md). None by default: a shared identity is refused.
   */
  QUIESCE_SHARED_RELAY_IDENTITIES: SharedRelayIdentities.default(new Map()),
  /**
   * Bind each report to its VM with the IMDS attested document (docs/auth.md, "Attestation"):
   * off, prefer (bind when it verifies; show and alert where it does not) or require. A
   * cluster's policy may say otherwise (`attestation`). Needs QUIESCE_CONTROL_PLANE: the attested
   * vmId is mapped to the VM with one ARM read.
   */
  QUIESCE_ATTESTATION: AttestationMode.default("prefer"),
  /** PEM certificates the signing chain must end in; default: the roots Azure's chains end in. */
  QUIESCE_ATTESTATION_TRUST_ROOTS: z.string().min(1).optional(),
  /** PEM intermediates tried before AIA; default: Azure's published ones. "none": AIA only. */
  QUIESCE_ATTESTATION_INTERMEDIATES: z.string().min(1).optional(),
  /** Hosts (host or host:port) intermediates may be fetched from by their AIA URL, comma-separated. */
  QUIESCE_ATTESTATION_AIA_HOSTS: z
    .string()
    .min(1)
    .default("www.microsoft.com,caissuers.microsoft.com"),
  /** The signer's SAN must be one of these or a subdomain; default: the cloud of QUIESCE_ARM_ENDPOINT. */
  QUIESCE_ATTESTATION_SAN_DOMAINS: z.string().min(1).optional(),
  /** A binding this old is re-attested (the relay proves itself again; its reports still count). */
  QUIESCE_ATTESTATION_PERIOD_HOURS: z.coerce
    .number()
    .min(0.01)
    .max(24 * 30)
    .default(24),
  /** A document created longer ago than this is refused as expired (clock skew included). */
  QUIESCE_ATTESTATION_MAX_AGE_SECONDS: z.coerce.number().int().min(30).max(21_600).default(600),
  /** Log every report at debug level. */
  QUIESCE_DEBUG: BooleanText.default(false),
  ...events.publishedEventSettings,
  ...changeSafetySettings,
  ...subscriptionSettings,
};

const required = (mode: string) => `required when QUIESCE_AUTH_MODE=${mode}`;
const key = (mode: string) =>
  z.string({ error: required(mode) }).min(16, "must be at least 16 characters");

/** In Azure: Entra tokens (relays' managed identities, operators' sign-in) for the app. */
const EntraAuth = z.object({
  ...common,
  QUIESCE_AUTH_MODE: z.literal("entra"),
  QUIESCE_ENTRA_TENANT_ID: z.string({ error: required("entra") }).min(1, required("entra")),
  /** Accepted `aud` values, comma-separated: the app id URI and/or the client id. */
  QUIESCE_ENTRA_AUDIENCE: z.string({ error: required("entra") }).min(1, required("entra")),
});

/** Locally: generated shared keys. */
const SharedKeyAuth = z.object({
  ...common,
  QUIESCE_AUTH_MODE: z.literal("sharedKey"),
  /** Key relays present. */
  QUIESCE_RELAY_KEY: key("sharedKey"),
  /** Key for the status and operator routes. */
  QUIESCE_OPERATOR_KEY: key("sharedKey"),
  /** Optional: a read-only key for the status routes and the status page. */
  QUIESCE_READER_KEY: z.string().min(16).optional(),
});

/**
 * One schema per authentication mode (a discriminated union on QUIESCE_AUTH_MODE, default
 * entra), so the type says which settings a mode has and nothing downstream re-checks them.
 */
export const CoordinatorSettings = z
  .preprocess(
    (input) =>
      typeof input === "object" &&
      input !== null &&
      (input as Record<string, unknown>).QUIESCE_AUTH_MODE === undefined
        ? { ...input, QUIESCE_AUTH_MODE: "entra" }
        : input,
    z.discriminatedUnion("QUIESCE_AUTH_MODE", [EntraAuth, SharedKeyAuth]),
  )
  .superRefine((s, ctx) => {
    if (!s.QUIESCE_STORAGE_CONNECTION_STRING === !s.QUIESCE_TABLE_ENDPOINT) {
      ctx.addIssue({
        code: "custom",
        path: ["QUIESCE_TABLE_ENDPOINT"],
        message: "set exactly one of QUIESCE_STORAGE_CONNECTION_STRING and QUIESCE_TABLE_ENDPOINT",
      });
    }
    checkChangeSafety(s, ctx);
    if (!s.QUIESCE_WEBHOOK_URL !== !s.QUIESCE_WEBHOOK_SECRET)
      ctx.addIssue({
        code: "custom",
        path: ["QUIESCE_WEBHOOK_SECRET"],
        message: "QUIESCE_WEBHOOK_URL and QUIESCE_WEBHOOK_SECRET go together",
      });
    // Refinements run even when a field failed to parse: only a parsed policy is looked at.
    if (!s.QUIESCE_CONTROL_PLANE && s.QUIESCE_POLICY?.clusters instanceof Map)
      for (const [name, p] of events.allPolicies(s.QUIESCE_POLICY)) {
        const needs = armUses(p);
        if (needs.length > 0)
          ctx.addIssue({
            code: "custom",
            path: ["QUIESCE_POLICY"],
            message: `${name} uses ${needs.join(", ")}, which act through Azure Resource Manager: set QUIESCE_CONTROL_PLANE=true (and grant its role, docs/control-plane.md) or remove them`,
          });
      }
    if (s.QUIESCE_POLICY?.clusters instanceof Map) {
      events.checkPublishedEvents(s, ctx, events.allPolicies(s.QUIESCE_POLICY));
      for (const message of subscriptionProblems(s, events.allPolicies(s.QUIESCE_POLICY)))
        ctx.addIssue({ code: "custom", path: ["QUIESCE_SUBSCRIPTIONS"], message });
    }
    if (!s.QUIESCE_CONTROL_PLANE && s.QUIESCE_POLICY?.clusters instanceof Map) {
      const requiring = [...events.allPolicies(s.QUIESCE_POLICY)]
        .filter(([, p]) => (p.attestation ?? s.QUIESCE_ATTESTATION) === "require")
        .map(([name]) => name);
      if (requiring.length > 0)
        ctx.addIssue({
          code: "custom",
          path: ["QUIESCE_ATTESTATION"],
          message: `${requiring.join(", ")} require attestation, which maps the attested vmId to its VM through Azure Resource Manager: set QUIESCE_CONTROL_PLANE=true (docs/auth.md) or use "prefer"`,
        });
    }
  })
  // Without the control plane, its approval fallback is off whatever the policy says, so the
  // status API never promises an approval nobody can make.
  .transform((s) =>
    s.QUIESCE_CONTROL_PLANE ? s : { ...s, QUIESCE_POLICY: withoutControlPlane(s.QUIESCE_POLICY) },
  )
  // The unclaimed cluster shows events no cluster owns; it must never approve one.
  .transform((s) => ({
    ...s,
    QUIESCE_POLICY: events.observeOnly(s.QUIESCE_POLICY, s.QUIESCE_UNCLAIMED_CLUSTER),
  }));

function withoutControlPlane(p: Policies): Policies {
  const off = (x: Policy): Policy => ({
    ...x,
    controlPlaneApproval: { ...x.controlPlaneApproval, mode: "off" },
  });
  return {
    default: off(p.default),
    clusters: new Map([...p.clusters].map(([c, x]) => [c, off(x)])),
  };
}
export type CoordinatorSettings = z.infer<typeof CoordinatorSettings>;

/** Every setting of every mode, by name: for listing them and checking values one by one. */
export const COORDINATOR_SETTING_FIELDS = {
  ...EntraAuth.shape,
  ...SharedKeyAuth.shape,
  QUIESCE_AUTH_MODE: z.enum(["entra", "sharedKey"]),
};

/** Names every setting the coordinator reads (the infra consistency test uses this). */
export const COORDINATOR_SETTING_NAMES = Object.keys(COORDINATOR_SETTING_FIELDS);

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads the settings from an environment, keeping only QUIESCE_* names; throws naming each bad
 * one. A name one typo away from a setting's (QUIESCE_CONTROL_PLANE_EVENT, any case) is refused
 * with the name meant: ignored, it would leave its setting at the default unnoticed.
 */
export function loadCoordinatorSettings(env: NodeJS.ProcessEnv = process.env): CoordinatorSettings {
  const given = Object.entries(env).filter(
    ([k, v]) => /^quiesce_/i.test(k) && v !== undefined && v !== "",
  );
  // App Service leaves a Key Vault reference it could not resolve as its own text: said as such,
  // not as a bad URL or key (and not parsed, so no second complaint).
  const unresolved = given.filter(([, v]) => /^@Microsoft\.KeyVault\(/i.test(v as string));
  const parsed = CoordinatorSettings.safeParse(
    Object.fromEntries(given.filter((e) => !unresolved.includes(e))),
  );
  const problems = [
    ...misspelledSettings(
      given.map(([k]) => k),
      COORDINATOR_SETTING_NAMES,
    ),
    ...unresolved.map(
      ([k]) =>
        `${k}: an unresolved Key Vault reference (the app's identity cannot read the secret, or it does not exist)`,
    ),
    ...(parsed.success ? [] : settingProblems(parsed.error)),
  ];
  if (problems.length > 0 || !parsed.success)
    throw new ConfigError(`invalid coordinator settings: ${describeSettingProblems(problems)}`);
  return parsed.data;
}
