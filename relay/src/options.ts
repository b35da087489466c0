import type { LogLevel, RELAY_SETTING_FIELDS, RelaySettings } from "./config";

/**
 * The relay's settings as the code uses them: typed, in milliseconds, named for what they mean,
 * built once at start-up (relay.ts) by `relayConfigFrom`. Only the config files and the
 * composition roots name a setting (test/architecture/settings.test.ts); a message that must name
 * one for the operator takes the name from `settingName` below.
 */

type SettingName = keyof typeof RELAY_SETTING_FIELDS;
type Unprefixed<N> = N extends `QUIESCE_${infer S}` ? S : never;

/** A setting's name for an operator-facing message: `settingName("KUBERNETES_API_URL")`. */
export const settingName = <S extends Unprefixed<SettingName>>(s: S): `QUIESCE_${S}` =>
  `QUIESCE_${s}`;

/** Each hook's configured form: a command, a local URL, or neither (the hook succeeds at once). */
export interface HookTargets {
  commands: { drain?: string; recover?: string };
  urls: { drain?: string; recover?: string };
}

/** How the relay proves itself to the coordinator. */
export type CoordinatorAuth =
  | { mode: "sharedKey"; relayKey: string }
  | {
      mode: "managedIdentity";
      /** The token's scope: `<the coordinator app's audience>/.default`. */
      scope: string;
      /** A user-assigned identity's client id; the system-assigned identity when absent. */
      clientId?: string;
    };

/** On a Karpenter node, a Spot signal is drained (coordinate) or left to Karpenter (stepAside). */
export type KarpenterSpot = "coordinate" | "stepAside";

/** The built-in Kubernetes drain (relay/src/kubernetes). */
export interface KubernetesDrainOptions {
  /** Cordon and evict before the drain hook, uncordon after the recover hook. */
  enabled: boolean;
  /** The API server; absent: the pod's in-cluster address. */
  apiUrl?: string;
  tokenFile: string;
  caFile: string;
  /** Label the node out of external load balancers before evicting. */
  excludeFromLoadBalancers: boolean;
  /** On a Karpenter node: drain its Spot signals (coordinate) or leave them to Karpenter. */
  karpenterSpot: KarpenterSpot;
}

/** What an advisory event (a Spot rebalance recommendation) does: run the hooks, or nothing. */
export type RebalanceAction = "hooks" | "none";

export interface RelayConfig {
  coordinatorUrl: string;
  cluster: string;
  auth: CoordinatorAuth;
  hooks: HookTargets;
  /** Longest a hook may run (a drain gets less when NotBefore is closer). */
  hookTimeoutMs: number;
  /** A drain must end this long before NotBefore. */
  hookSafetyMarginMs: number;
  imds: { url: string; apiVersion: string };
  /** Advisory events (rebalance recommendations): hooks (gentle, never approved) or none. */
  rebalanceAction: RebalanceAction;
  /** Scheduled Events poll interval. */
  pollIntervalMs: number;
  stateFile: string;
  /** Everything but the StartRequests POST to IMDS. */
  dryRun: boolean;
  logLevel: LogLevel;
  kubernetes: KubernetesDrainOptions;
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** The relay's options, from parsed settings (pure). */
export function relayConfigFrom(s: RelaySettings): RelayConfig {
  return {
    coordinatorUrl: s.QUIESCE_COORDINATOR_URL,
    cluster: s.QUIESCE_CLUSTER,
    auth:
      s.QUIESCE_AUTH_MODE === "sharedKey"
        ? { mode: "sharedKey", relayKey: s.QUIESCE_RELAY_KEY }
        : {
            mode: "managedIdentity",
            scope: `${s.QUIESCE_ENTRA_AUDIENCE.replace(/\/+$/, "")}/.default`,
            ...optional("clientId", s.QUIESCE_MANAGED_IDENTITY_CLIENT_ID),
          },
    hooks: {
      commands: {
        ...optional("drain", s.QUIESCE_DRAIN_COMMAND),
        ...optional("recover", s.QUIESCE_RECOVER_COMMAND),
      },
      urls: {
        ...optional("drain", s.QUIESCE_DRAIN_URL),
        ...optional("recover", s.QUIESCE_RECOVER_URL),
      },
    },
    hookTimeoutMs: s.QUIESCE_HOOK_TIMEOUT_SECONDS * 1000,
    hookSafetyMarginMs: s.QUIESCE_HOOK_SAFETY_MARGIN_SECONDS * 1000,
    imds: { url: s.QUIESCE_IMDS_URL, apiVersion: s.QUIESCE_IMDS_API_VERSION },
    rebalanceAction: s.QUIESCE_REBALANCE_ACTION,
    pollIntervalMs: s.QUIESCE_POLL_INTERVAL_MS,
    stateFile: s.QUIESCE_STATE_FILE,
    dryRun: s.QUIESCE_DRY_RUN,
    logLevel: s.QUIESCE_LOG_LEVEL,
    kubernetes: {
      enabled: s.QUIESCE_KUBERNETES_DRAIN,
      ...optional("apiUrl", s.QUIESCE_KUBERNETES_API_URL),
      tokenFile: s.QUIESCE_KUBERNETES_TOKEN_FILE,
      caFile: s.QUIESCE_KUBERNETES_CA_FILE,
      excludeFromLoadBalancers: s.QUIESCE_KUBERNETES_EXCLUDE_FROM_LOAD_BALANCERS,
      karpenterSpot: s.QUIESCE_KUBERNETES_KARPENTER_SPOT,
    },
  };
}
