import {
  type AttestationMode,
  type Policy,
  type Policies as PolicySet,
  policyFor,
} from "@quiesce/protocol/policy";
import type { COORDINATOR_SETTING_FIELDS, CoordinatorSettings } from "./config";
import { type ChangeSafetyOptions, changeSafetyOptions } from "./configChangeSafety";

/**
 * The coordinator's settings as the code uses them: typed, in the units the code counts in
 * (milliseconds), named for what they mean, built once at start-up (coordinator.ts) by
 * `optionsFrom`. Only the config files and the composition roots name a setting
 * (test/architecture/settings.test.ts); a message that must name one for the operator takes the
 * name from `settingName` below.
 */

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

type SettingName = keyof typeof COORDINATOR_SETTING_FIELDS;
type Unprefixed<N> = N extends `QUIESCE_${infer S}` ? S : never;

/** A setting's name for an operator-facing message: `settingName("CONTROL_PLANE")`. */
export const settingName = <S extends Unprefixed<SettingName>>(s: S): `QUIESCE_${S}` =>
  `QUIESCE_${s}`;

/** Table Storage: a connection string, or an endpoint reached with the managed identity. */
export interface StoreOptions {
  connectionString?: string;
  tableEndpoint?: string;
  /** The user-assigned identity's client id; system-assigned when absent. */
  clientId?: string;
  /** Prefix of every table's name. */
  tablePrefix: string;
}

export type AuthOptions =
  | { mode: "sharedKey"; relayKey: string; operatorKey: string; readerKey?: string }
  | {
      mode: "entra";
      tenantId: string;
      /** Accepted `aud` values (may be empty: the authenticator refuses to start). */
      audiences: string[];
      /** Accepted issuers; empty: the tenant's v1 and v2 issuers. */
      issuers: string[];
      /** Override of the signing keys URL. */
      jwksUrl?: string;
      roles: { relay: string; reader: string; operator: string };
      /** Microsoft Graph, where a relay's managed identity is looked up. */
      graphUrl: string;
    };

/** Notification sinks (secrets but the status page's link) and how long a message may wait. */
export interface NotifyOptions {
  teamsUrl?: string;
  slackUrl?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  statusPageUrl?: string;
  /** A notification still undelivered this long after it was queued is dropped. */
  deadlineMs: number;
}

/** Azure Resource Manager, when the control plane is on. */
export interface ArmOptions {
  endpoint: string;
  /** Token audience when not the endpoint itself. */
  audience?: string;
}

/** How attested documents are checked (attestation/index.ts builds the attestor from these). */
export interface AttestorOptions {
  /** PEM trust roots; absent: the roots Azure's chains end in. */
  trustRootsPem?: string;
  /** Intermediates tried before AIA: the bundled ones, none (AIA only), or these PEM ones. */
  intermediates: "bundled" | "none" | { pem: string };
  /** Hosts intermediates may be fetched from (lower case). */
  aiaHosts: string[];
  /** SAN domains the signer must be in (lower case); null: the cloud of `armEndpoint`. */
  sanDomains: string[] | null;
  armEndpoint: string;
  /** A document created longer ago is refused as expired. */
  maxAgeMs: number;
}

/** What decides the attestation mode of a cluster whose policy names none. */
export interface AttestationDefaults {
  /** Attestation can be checked at all: the control plane maps an attested vmId to its VM. */
  available: boolean;
  /** The mode of a policy without `attestation`. */
  defaultMode: AttestationMode;
  /** A binding this old is re-attested. */
  periodMs: number;
}

/** Event Grid deliveries and the Resource Graph backstop (configPublished.ts). */
export interface ControlPlaneEventOptions {
  enabled: boolean;
  /** The `?code=` the Event Grid webhook route needs; null: the route answers 404. */
  eventGridKey: string | null;
  /** The backstop runs at most this often per instance; 0: never. */
  resourceGraphIntervalMs: number;
  /** Subscriptions the backstop queries; empty: those the claims name, and `subscriptions`. */
  resourceGraphSubscriptions: readonly string[];
  /** Every subscription the deployment serves (QUIESCE_SUBSCRIPTIONS); empty: not named. */
  subscriptions: readonly string[];
}

export interface CoordinatorOptions {
  /** A relay's hook state is listed in hooksStored only once stored this long; 0: at once. */
  storageSettleMs: number;
  /** Ended events (and their readiness rows) are deleted this long after they ended. */
  eventRetentionMs: number;
  /** History rows are deleted this long after they were written. */
  historyRetentionMs: number;
  /** Where events no cluster owns go; null: they are dropped (the setting's "off"). */
  unclaimedCluster: string | null;
  /** Largest accepted report body. */
  maxBodyBytes: number;
  /** Log every report, sweep and delivery at debug level. */
  debug: boolean;
  /** The control plane (ARM) is on; null `arm` otherwise. */
  arm: ArmOptions | null;
  /** Azure Change Safety: policy tokens on ARM writes, change records per event (both off by default). */
  changeSafety: ChangeSafetyOptions;
  /** Shared relay identities (lower-case resource id) and the scale sets each may report for. */
  sharedRelayIdentities: ReadonlyMap<string, readonly string[]>;
  attestation: AttestationDefaults;
  attestor: AttestorOptions;
  controlPlaneEvents: ControlPlaneEventOptions;
  /** NCRONTAB schedule of the sweep (the Functions host reads the setting itself). */
  sweepSchedule: string;
  store: StoreOptions;
  /** Client id of the app's user-assigned identity (ARM, gates, Graph); system-assigned when absent. */
  managedIdentityClientId?: string;
  auth: AuthOptions;
  notify: NotifyOptions;
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

const list = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** The options, from parsed settings (pure: no I/O, no clock). */
export function optionsFrom(s: CoordinatorSettings): CoordinatorOptions {
  const intermediates = s.QUIESCE_ATTESTATION_INTERMEDIATES;
  return {
    storageSettleMs: s.QUIESCE_STORAGE_SETTLE_SECONDS * SECOND_MS,
    eventRetentionMs: s.QUIESCE_EVENT_RETENTION_DAYS * DAY_MS,
    historyRetentionMs: s.QUIESCE_HISTORY_RETENTION_DAYS * DAY_MS,
    unclaimedCluster: s.QUIESCE_UNCLAIMED_CLUSTER === "off" ? null : s.QUIESCE_UNCLAIMED_CLUSTER,
    maxBodyBytes: s.QUIESCE_MAX_BODY_BYTES,
    debug: s.QUIESCE_DEBUG,
    arm: s.QUIESCE_CONTROL_PLANE
      ? { endpoint: s.QUIESCE_ARM_ENDPOINT, ...optional("audience", s.QUIESCE_ARM_AUDIENCE) }
      : null,
    changeSafety: changeSafetyOptions(s.QUIESCE_CHANGE_SAFETY),
    sharedRelayIdentities: s.QUIESCE_SHARED_RELAY_IDENTITIES,
    attestation: {
      available: s.QUIESCE_CONTROL_PLANE,
      defaultMode: s.QUIESCE_ATTESTATION,
      periodMs: s.QUIESCE_ATTESTATION_PERIOD_HOURS * HOUR_MS,
    },
    attestor: {
      ...optional("trustRootsPem", s.QUIESCE_ATTESTATION_TRUST_ROOTS),
      intermediates:
        intermediates === undefined
          ? "bundled"
          : intermediates.trim().toLowerCase() === "none"
            ? "none"
            : { pem: intermediates },
      aiaHosts: list(s.QUIESCE_ATTESTATION_AIA_HOSTS).map((h) => h.toLowerCase()),
      sanDomains: s.QUIESCE_ATTESTATION_SAN_DOMAINS
        ? list(s.QUIESCE_ATTESTATION_SAN_DOMAINS).map((d) => d.toLowerCase())
        : null,
      armEndpoint: s.QUIESCE_ARM_ENDPOINT,
      maxAgeMs: s.QUIESCE_ATTESTATION_MAX_AGE_SECONDS * SECOND_MS,
    },
    controlPlaneEvents: {
      enabled: s.QUIESCE_CONTROL_PLANE_EVENTS,
      eventGridKey: s.QUIESCE_EVENT_GRID_KEY ?? null,
      resourceGraphIntervalMs: s.QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS * SECOND_MS,
      resourceGraphSubscriptions: s.QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS,
      subscriptions: s.QUIESCE_SUBSCRIPTIONS,
    },
    sweepSchedule: s.QUIESCE_SWEEP_SCHEDULE,
    store: {
      ...optional("connectionString", s.QUIESCE_STORAGE_CONNECTION_STRING),
      ...optional("tableEndpoint", s.QUIESCE_TABLE_ENDPOINT),
      ...optional("clientId", s.QUIESCE_STORAGE_CLIENT_ID),
      tablePrefix: s.QUIESCE_TABLE_PREFIX,
    },
    ...optional("managedIdentityClientId", s.QUIESCE_STORAGE_CLIENT_ID),
    auth:
      s.QUIESCE_AUTH_MODE === "sharedKey"
        ? {
            mode: "sharedKey",
            relayKey: s.QUIESCE_RELAY_KEY,
            operatorKey: s.QUIESCE_OPERATOR_KEY,
            ...optional("readerKey", s.QUIESCE_READER_KEY),
          }
        : {
            mode: "entra",
            tenantId: s.QUIESCE_ENTRA_TENANT_ID,
            audiences: list(s.QUIESCE_ENTRA_AUDIENCE),
            issuers: list(s.QUIESCE_ENTRA_ISSUERS),
            ...optional("jwksUrl", s.QUIESCE_ENTRA_JWKS_URL),
            roles: {
              relay: s.QUIESCE_RELAY_ROLE,
              reader: s.QUIESCE_READER_ROLE,
              operator: s.QUIESCE_OPERATOR_ROLE,
            },
            graphUrl: s.QUIESCE_GRAPH_URL,
          },
    notify: {
      ...optional("teamsUrl", s.QUIESCE_TEAMS_WEBHOOK_URL),
      ...optional("slackUrl", s.QUIESCE_SLACK_WEBHOOK_URL),
      ...optional("webhookUrl", s.QUIESCE_WEBHOOK_URL),
      ...optional("webhookSecret", s.QUIESCE_WEBHOOK_SECRET),
      ...optional("statusPageUrl", s.QUIESCE_STATUS_PAGE_URL),
      deadlineMs: s.QUIESCE_NOTIFY_DEADLINE_MINUTES * MINUTE_MS,
    },
  };
}

/** The policy in force for each cluster. */
export interface Policies {
  /** The cluster's own policy, else the default: one lookup, resolved when the settings were read. */
  for(cluster: string): Policy;
  /** Every policy (the default and each cluster's), e.g. to index what clusters claim. */
  readonly all: PolicySet;
}

/**
 * The policies, from parsed settings. config.ts resolves each cluster's complete policy once
 * (its override on the default, the control plane's and the unclaimed cluster's limits applied),
 * so `for` is a map lookup and needs no cache of its own.
 */
export function policiesFrom(s: CoordinatorSettings): Policies {
  const all = s.QUIESCE_POLICY;
  return { all, for: (cluster) => policyFor(all, cluster) };
}
