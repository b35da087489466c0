import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type ArmAnswer, armError } from "./errors";

/**
 * Azure Change Safety as the loopback ARM plays it (docs/control-plane.md, "Change Safety"): an
 * Azure Policy with external evaluation enforced on every write (`missingTokenAction` Audit or
 * Deny), the `acquirePolicyToken` action that issues the tokens, and the change records tokens
 * may name. Off until a test or the control API turns it on (`PUT /arm/changeSafety`).
 *
 * What is from the owners' artifacts (test/contracts/fixtures/change-safety): the acquire request
 * and answer (PolicyTokens_Acquire, 2025-03-01), the header, the deny's shape (403
 * RequestDisallowedByPolicy with `missingPolicyTokenDetails` under a PolicyViolation, as the
 * Azure SDKs and Terraform's AzAPI provider parse it), the change record model (2026-01-01-preview).
 * What is the simulator's own assumption: a token binds the write's path, api-version and method
 * and lives `tokenLifetimeSeconds`; a refused evaluation answers 200 `result: Failed`; writes to
 * Microsoft.ChangeSafety itself never need a change reference (they make one).
 */
export const ChangeSafetyPolicy = z.strictObject({
  /** What ARM does with a write that carries no valid token: no such policy, Audit, Deny. */
  missingTokenAction: z.enum(["off", "Audit", "Deny"]).default("off"),
  /** The external evaluation wants a change reference naming a known change record. */
  requireChangeReference: z.boolean().default(false),
  /** The external evaluation refuses every token (a change freeze). */
  refuse: z.boolean().default(false),
  tokenLifetimeSeconds: z.number().int().min(1).max(86_400).default(300),
  /** Issued tokens start with this (a test's canary). */
  tokenPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]{0,64}$/)
    .default(""),
});
export type ChangeSafetyPolicy = z.infer<typeof ChangeSafetyPolicy>;
export type ChangeSafetyPolicyInput = z.input<typeof ChangeSafetyPolicy>;

interface IssuedToken {
  /** `path?api-version=…`, path in lower case: what the token is good for. */
  readonly operation: string;
  readonly method: string;
  readonly changeReference: string | null;
  readonly expiresMs: number;
}

/** A write the policy let through without a valid token (missingTokenAction Audit). */
export interface AuditedWrite {
  readonly method: string;
  readonly path: string;
  readonly why: string;
}

/** A write that carried a valid token, and the change record it named. */
export interface GuardedWrite {
  readonly method: string;
  readonly path: string;
  readonly changeReference: string | null;
}

export interface ChangeSafetyState {
  readonly policy: ChangeSafetyPolicy;
  readonly tokens: Readonly<Record<string, IssuedToken>>;
  readonly audited: readonly AuditedWrite[];
  readonly guarded: readonly GuardedWrite[];
  /** Change records by lower-case id, as the RP returns them. */
  readonly records: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export const initialChangeSafety = (): ChangeSafetyState => ({
  policy: ChangeSafetyPolicy.parse({}),
  tokens: {},
  audited: [],
  guarded: [],
  records: {},
});

const KEEP = 1_000;
const operationKey = (path: string, apiVersion: string | null) =>
  `${path.toLowerCase()}?api-version=${apiVersion ?? ""}`;

/** The answer to an acquire, and the state after it. */
export function acquire(
  s: ChangeSafetyState,
  req: { uri: string; httpMethod: string; changeReference?: string },
  nowMs: number,
): { state: ChangeSafetyState; body: Record<string, unknown> } {
  const failed = (message: string) => ({
    state: s,
    body: { result: "Failed", results: [{ result: "Failed", message }] },
  });
  let url: URL;
  try {
    url = new URL(req.uri);
  } catch {
    return failed(`The operation uri '${req.uri}' is not an absolute URI.`);
  }
  if (s.policy.missingTokenAction === "off") return { state: s, body: { result: "Succeeded" } };
  if (s.policy.refuse)
    return failed("The change is not allowed now: a change freeze is in effect.");
  const ref = req.changeReference ?? null;
  const needsRef =
    s.policy.requireChangeReference &&
    !/\/providers\/microsoft\.changesafety\//i.test(url.pathname);
  if (needsRef && !ref) return failed("A change reference is required for this operation.");
  if (ref && !s.records[ref.toLowerCase()])
    return failed(`The change reference '${ref}' does not name a known change record.`);
  const token = `PoP ${s.policy.tokenPrefix}${randomUUID()}`;
  const expiresMs = nowMs + s.policy.tokenLifetimeSeconds * 1000;
  const issued: IssuedToken = {
    operation: operationKey(url.pathname, url.searchParams.get("api-version")),
    method: req.httpMethod.toUpperCase(),
    changeReference: ref,
    expiresMs,
  };
  const tokens = Object.fromEntries(
    Object.entries({ ...s.tokens, [token]: issued }).filter(([, t]) => t.expiresMs > nowMs),
  );
  return {
    state: { ...s, tokens },
    body: {
      result: "Succeeded",
      token,
      tokenId: randomUUID(),
      expiration: new Date(expiresMs).toISOString(),
      ...(ref ? { changeReference: ref } : {}),
    },
  };
}

/** ARM's 403 for a write a policy with external evaluation denies (the SDKs parse this shape). */
export function missingTokenDenied(path: string, why: string, refRequired: boolean): ArmAnswer {
  const name = path.split("/").filter(Boolean).at(-1) ?? path;
  const base = armError(
    403,
    "RequestDisallowedByPolicy",
    `Resource '${name}' was disallowed by policy. Reasons: '${why}'. See error details for policy resource IDs.`,
  );
  const error = (base.body as { error: Record<string, unknown> }).error;
  return {
    status: 403,
    body: {
      error: {
        ...error,
        additionalInfo: [
          {
            type: "PolicyViolation",
            info: {
              policyDefinitionDisplayName: "Change Safety (simulated)",
              evaluationDetails: {
                missingPolicyTokenDetails: {
                  shouldDeny: true,
                  isChangeReferenceRequired: refRequired,
                  endpointKind: "ChangeSafetyValidation",
                },
              },
            },
          },
        ],
      },
    },
  };
}

/**
 * The policy's verdict on one write: null to let it through (after recording it), or the deny.
 * `token`: the `x-ms-policy-external-evaluations` header as sent.
 */
export function checkWrite(
  s: ChangeSafetyState,
  w: { method: string; path: string; apiVersion: string | null; token: string | undefined },
  nowMs: number,
): { state: ChangeSafetyState; denied: ArmAnswer | null } {
  if (s.policy.missingTokenAction === "off") return { state: s, denied: null };
  const issued = w.token ? s.tokens[w.token] : undefined;
  const why = !w.token
    ? "A policy token is required (header 'x-ms-policy-external-evaluations' is missing)"
    : !issued || issued.expiresMs <= nowMs
      ? "The policy token is not valid or has expired"
      : issued.operation !== operationKey(w.path, w.apiVersion) ||
          issued.method !== w.method.toUpperCase()
        ? "The policy token was issued for another operation"
        : null;
  if (why === null) {
    const entry = {
      method: w.method,
      path: w.path,
      changeReference: issued?.changeReference ?? null,
    };
    return { state: { ...s, guarded: [...s.guarded, entry].slice(-KEEP) }, denied: null };
  }
  if (s.policy.missingTokenAction === "Deny")
    return { state: s, denied: missingTokenDenied(w.path, why, s.policy.requireChangeReference) };
  const audited = [...s.audited, { method: w.method, path: w.path, why }].slice(-KEEP);
  return { state: { ...s, audited }, denied: null };
}
