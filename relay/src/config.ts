import {
  BooleanText,
  ClusterName,
  describeZodError,
  HttpsOrLoopbackUrl,
  parseJsonWith,
} from "@quiesce/protocol";
import { z } from "zod";

/**
 * The relay's settings: environment variables, optionally also a JSON file (`--config FILE` or
 * QUIESCE_CONFIG_FILE) whose keys are the same names; the environment wins. These names are the
 * ones infra/ and the install scripts set (a test keeps them in step through RELAY_SETTING_NAMES).
 */

/** Env gives text (BooleanText's words), a JSON file gives booleans: accept both, and nothing else. */
const flag = z.union([z.boolean(), BooleanText]);

const optionalText = z.string().trim().min(1).optional();
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

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
  QUIESCE_DRAIN_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Local URL that receives the recover event as an HTTP POST (instead of a command). */
  QUIESCE_RECOVER_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Longest a hook may run; a drain gets less when NotBefore is closer. */
  QUIESCE_HOOK_TIMEOUT_SECONDS: int(1, 86_400).default(600),
  /** A drain must end this long before NotBefore, so the event can still be approved early. */
  QUIESCE_HOOK_SAFETY_MARGIN_SECONDS: int(0, 3600).default(10),
  /** IMDS base URL; tests and the fabric simulator stand in for 169.254.169.254. */
  QUIESCE_IMDS_URL: z.url({ protocol: /^https?$/ }).default("http://169.254.169.254"),
  /** api-version of /metadata/scheduledevents. */
  QUIESCE_IMDS_API_VERSION: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must look like 2020-07-01")
    .default("2020-07-01"),
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

/** Validate already-merged settings; the error names every bad setting. */
export function parseRelaySettings(input: Record<string, unknown>): RelaySettings {
  const parsed = RelaySettings.safeParse(input);
  if (!parsed.success)
    throw new SettingsError(`invalid relay settings: ${describeZodError(parsed.error)}`);
  return parsed.data;
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
 * The config file: a JSON object whose keys are setting names (their values are checked with the
 * environment's, by RelaySettings). Unknown keys are refused so a typo is not silently ignored.
 */
const ConfigFile = z
  .record(z.string(), z.unknown(), { error: "must hold a JSON object of settings" })
  .superRefine((file, ctx) => {
    const unknown = Object.keys(file).filter((k) => !(RELAY_SETTING_NAMES as string[]).includes(k));
    if (unknown.length > 0)
      ctx.addIssue({ code: "custom", message: `unknown setting(s) ${unknown.join(", ")}` });
  });

/** Parse the text of a config file; the error names the file and what is wrong with it. */
export function parseConfigFile(text: string, path: string): Record<string, unknown> {
  const parsed = parseJsonWith(ConfigFile, text);
  if (!parsed.ok) throw new SettingsError(`config file ${path}: ${parsed.error}`);
  return parsed.value;
}

/** The settings as safe to log: the key is never written anywhere. */
export function redactSettings(s: RelaySettings): Record<string, unknown> {
  return s.QUIESCE_AUTH_MODE === "sharedKey" ? { ...s, QUIESCE_RELAY_KEY: "(set)" } : { ...s };
}
