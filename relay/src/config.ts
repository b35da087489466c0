import {
  ClusterName,
  describeSettingProblems,
  HttpsOrLoopbackUrl,
  HttpUrl,
  misspelledSettings,
  parseJsonWith,
  settingProblems,
} from "@quiesce/protocol";
import { z } from "zod";
import { flag, int } from "./configValues";

/**
 * The relay's settings: environment variables, optionally also a JSON file (`--config FILE` or
 * QUIESCE_CONFIG_FILE) whose keys are the same names; the environment wins. These names are the
 * ones infra/ and the install scripts set (a test keeps them in step through RELAY_SETTING_NAMES).
 */

const optionalText = z.string().trim().min(1).optional();

export function defaultStateFile(platform: NodeJS.Platform = process.platform): string {
  return platform === "win32"
    ? `${process.env.ProgramData ?? "C:\\ProgramData"}\\Quiesce\\relay-state.json`
    : "/var/lib/quiesce-relay/state.json";
}

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Every setting but the authentication ones. */
const common = {
  /**
   * Base URL of the coordinator Function app, e.g. https://quiesce-xyz.azurewebsites.net. Every
   * report carries the relay's key or its VM's Entra token: http:// only to a loopback coordinator.
   */
  QUIESCE_COORDINATOR_URL: HttpsOrLoopbackUrl,
  /** The cluster (policy unit) this VM belongs to. */
  QUIESCE_CLUSTER: ClusterName,
  /** Shell command run to drain (sh on Linux, PowerShell on Windows). */
  QUIESCE_DRAIN_COMMAND: optionalText,
  /** Shell command run to recover once the event has left the document. */
  QUIESCE_RECOVER_COMMAND: optionalText,
  /** Local URL that receives the drain event as an HTTP POST (instead of a command). */
  QUIESCE_DRAIN_URL: HttpUrl.optional(),
  /** Local URL that receives the recover event as an HTTP POST (instead of a command). */
  QUIESCE_RECOVER_URL: HttpUrl.optional(),
  /** Longest a hook may run; a drain gets less when NotBefore is closer. */
  QUIESCE_HOOK_TIMEOUT_SECONDS: int(1, 86_400).default(600),
  /** A drain must end this long before NotBefore, so the event can still be approved early. */
  QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: int(0, 3600).default(10),
  /** IMDS base URL; tests and the fabric simulator stand in for 169.254.169.254. */
  QUIESCE_IMDS_URL: HttpUrl.default("http://169.254.169.254"),
  /**
   * api-version of /metadata/scheduledevents. 2024-07-09 opts in to Spot rebalance
   * recommendations (SpotRebalanceRecommendation, advisory), which IMDS serves only there.
   */
  QUIESCE_IMDS_API_VERSION: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must look like 2020-07-01")
    .default("2020-07-01"),
  /**
   * What a rebalance recommendation (advisory: never approved) does on its VM: `hooks` runs the
   * drain hook (QUIESCE_EVENT_ADVISORY=true; with the Kubernetes drain, a gentle one) and the
   * recover hook when it leaves; `none` only reports it.
   */
  QUIESCE_REBALANCE_ACTION: z.enum(["hooks", "none"]).default("hooks"),
  /** Scheduled Events poll interval; Azure advises once a second (IMDS allows 5 requests/s). */
  QUIESCE_POLL_INTERVAL_MS: int(200, 60_000).default(1000),
  /** Durable hook state (written atomically). */
  QUIESCE_STATE_FILE: z
    .string()
    .min(1)
    .default(() => defaultStateFile()),
  /** Everything but the StartRequests POST to IMDS. */
  QUIESCE_DRY_RUN: flag.default(false),
  QUIESCE_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /**
   * The built-in Kubernetes drain (relay/src/kubernetes): before the drain hook, cordon this VM's
   * node and evict its pods through the Eviction API; after the recover hook, uncordon it.
   */
  QUIESCE_KUBERNETES_DRAIN: flag.default(false),
  /**
   * The API server; in a pod, https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT. The
   * bearer token never crosses a network in clear text: http:// only to a loopback stand-in.
   */
  QUIESCE_KUBERNETES_API_URL: HttpsOrLoopbackUrl.optional(),
  /** The service account's token (projected and rotated by the kubelet: read at every use). */
  QUIESCE_KUBERNETES_TOKEN_FILE: z
    .string()
    .min(1)
    .default("/var/run/secrets/kubernetes.io/serviceaccount/token"),
  /** The cluster's CA, that the API server's certificate must chain to. */
  QUIESCE_KUBERNETES_CA_FILE: z
    .string()
    .min(1)
    .default("/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"),
  /** Label the node `node.kubernetes.io/exclude-from-external-load-balancers` before evicting. */
  QUIESCE_KUBERNETES_EXCLUDE_FROM_LOAD_BALANCERS: flag.default(false),
  /**
   * On a node Karpenter (AKS Node Auto Provisioning) manages: `coordinate` drains its Spot
   * preemptions as any; `stepAside` leaves them to Karpenter (relay/src/kubernetes/karpenter.ts).
   */
  QUIESCE_KUBERNETES_KARPENTER_SPOT: z.enum(["coordinate", "stepAside"]).default("coordinate"),
  /** JSON file with any of these settings as keys (the environment wins). */
  QUIESCE_CONFIG_FILE: optionalText,
};

/** In Azure: an Entra token of the VM's managed identity for the coordinator's app. */
const ManagedIdentityAuth = z.object({
  ...common,
  QUIESCE_AUTH_MODE: z.literal("managedIdentity"),
  /** The coordinator app's id URI or client id; the token's scope is `<audience>/.default`. */
  QUIESCE_ENTRA_AUDIENCE: z
    .string({ error: "required when QUIESCE_AUTH_MODE=managedIdentity" })
    .trim()
    .min(1, "required when QUIESCE_AUTH_MODE=managedIdentity"),
  /** Client id of a user-assigned identity; the system-assigned identity when absent. */
  QUIESCE_MANAGED_IDENTITY_CLIENT_ID: optionalText,
});

/** Locally: the key the coordinator expects (QUIESCE_RELAY_KEY on its side too). */
const SharedKeyAuth = z.object({
  ...common,
  QUIESCE_AUTH_MODE: z.literal("sharedKey"),
  QUIESCE_RELAY_KEY: z
    .string({ error: "required when QUIESCE_AUTH_MODE=sharedKey" })
    .min(16, "must be at least 16 characters"),
});

/**
 * One schema per authentication mode, so the type says which settings a mode has and nothing
 * downstream re-checks them. QUIESCE_AUTH_MODE defaults to managedIdentity.
 */
export const RelaySettings = z
  .preprocess(
    (input) =>
      typeof input === "object" &&
      input !== null &&
      !(
        "QUIESCE_AUTH_MODE" in input &&
        (input as Record<string, unknown>).QUIESCE_AUTH_MODE !== undefined
      )
        ? { ...input, QUIESCE_AUTH_MODE: "managedIdentity" }
        : input,
    z.discriminatedUnion("QUIESCE_AUTH_MODE", [ManagedIdentityAuth, SharedKeyAuth]),
  )
  .superRefine((s, ctx) => {
    for (const hook of ["DRAIN", "RECOVER"] as const) {
      if (s[`QUIESCE_${hook}_COMMAND`] && s[`QUIESCE_${hook}_URL`]) {
        ctx.addIssue({
          code: "custom",
          path: [`QUIESCE_${hook}_URL`],
          message: `set QUIESCE_${hook}_COMMAND or QUIESCE_${hook}_URL, not both`,
        });
      }
    }
  });
export type RelaySettings = z.infer<typeof RelaySettings>;
export type RelaySettingsInput =
  | z.input<typeof ManagedIdentityAuth>
  | z.input<typeof SharedKeyAuth>;

/** Every setting of every mode, by name: for listing them and checking values one by one. */
export const RELAY_SETTING_FIELDS = {
  ...ManagedIdentityAuth.shape,
  ...SharedKeyAuth.shape,
  QUIESCE_AUTH_MODE: z.enum(["managedIdentity", "sharedKey"]),
};

export const RELAY_SETTING_NAMES = Object.keys(
  RELAY_SETTING_FIELDS,
) as (keyof typeof RELAY_SETTING_FIELDS)[];

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}

/**
 * Validate already-merged settings; the error names every bad setting, after `problems` found
 * before (misspelled names: misspelledEnvironment).
 */
export function parseRelaySettings(
  input: Record<string, unknown>,
  problems: readonly string[] = [],
): RelaySettings {
  const parsed = RelaySettings.safeParse(input);
  const all = [...problems, ...(parsed.success ? [] : settingProblems(parsed.error))];
  if (all.length > 0 || !parsed.success)
    throw new SettingsError(`invalid relay settings: ${describeSettingProblems(all)}`);
  return parsed.data;
}

/**
 * Environment variables one typo away from a setting's name (QUIESCE_DRAIN_COMAND, any case),
 * each as a problem naming the setting meant. Refused rather than warned about: ignored, such a
 * name leaves its setting unset, and with no drain hook a VM counts as drained at once. Names
 * near no setting (another program's QUIESCE_ variables) are not this program's to refuse.
 */
export function misspelledEnvironment(env: Record<string, string | undefined>): string[] {
  return misspelledSettings(
    // Empty ones are skipped, as mergeSettingSources skips them: they set nothing.
    Object.keys(env).filter((k) => /^quiesce_/i.test(k) && env[k] !== undefined && env[k] !== ""),
    RELAY_SETTING_NAMES,
  );
}

/**
 * Merge the JSON file (if any) under the environment, keeping only our names so the rest of the
 * environment (PATH, secrets of other programs) never reaches validation errors or logs.
 */
export function mergeSettingSources(
  env: Record<string, string | undefined>,
  fileContent: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const name of RELAY_SETTING_NAMES) {
    const fromEnv = env[name];
    if (fromEnv !== undefined && fromEnv !== "") merged[name] = fromEnv;
    else if (fileContent && fileContent[name] !== undefined) merged[name] = fileContent[name];
  }
  return merged;
}

/**
 * The config file: a JSON object whose keys are setting names. Unknown keys are refused so a typo
 * is not silently ignored (with the name meant, when one is near); each value is checked against
 * its setting here, so an error says it is the file's (a setting the environment also sets is
 * checked again with the environment's value, by RelaySettings).
 */
const ConfigFile = z.record(z.string(), z.unknown(), {
  error: "must hold a JSON object of settings",
});

const FIELDS: Record<string, z.ZodType> = RELAY_SETTING_FIELDS;

/** Parse the text of a config file; the error names the file and every key wrong in it. */
export function parseConfigFile(text: string, path: string): Record<string, unknown> {
  const parsed = parseJsonWith(ConfigFile, text);
  if (!parsed.ok) throw new SettingsError(`config file ${path}: ${parsed.error}`);
  const problems: string[] = [];
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(parsed.value)) {
    const field = Object.hasOwn(FIELDS, key) ? FIELDS[key] : undefined;
    if (!field) {
      const typo = misspelledSettings([key], RELAY_SETTING_NAMES);
      if (typo.length > 0) problems.push(...typo);
      else unknown.push(key);
      continue;
    }
    const checked = field.safeParse(value);
    if (!checked.success)
      problems.push(...settingProblems(checked.error).map((p) => `${key}: ${p}`));
  }
  if (unknown.length > 0) problems.push(`unknown setting(s) ${unknown.join(", ")}`);
  if (problems.length > 0)
    throw new SettingsError(`config file ${path}: ${describeSettingProblems(problems)}`);
  return parsed.value;
}

/** The settings as safe to log: the key is never written anywhere. */
export function redactSettings(s: RelaySettings): Record<string, unknown> {
  return s.QUIESCE_AUTH_MODE === "sharedKey" ? { ...s, QUIESCE_RELAY_KEY: "(set)" } : { ...s };
}
