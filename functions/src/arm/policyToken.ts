import { type Result, rememberSecret } from "@quiesce/protocol";
import { z } from "zod";
import { type ArmError, excerpt, localError } from "./armError";
import type { ArmClient, ArmRequest, ArmResponse } from "./client";
import { armPath } from "./resourceId";

/**
 * Azure Policy's external evaluation ("Change Safety"): a policy whose
 * `externalEvaluationEnforcementSettings.missingTokenAction` is `Deny` refuses an ARM write that
 * does not carry a policy token in `x-ms-policy-external-evaluations`; one with `Audit` lets it
 * through and records it. The token is acquired per operation from
 * `POST /subscriptions/{id}/providers/Microsoft.Authorization/acquirePolicyToken` with the
 * operation's URI, method and body, and optionally a change reference (a change record's id).
 *
 * api-version 2025-03-01: the first GA version of `PolicyTokens_Acquire` (azure-rest-api-specs
 * `specification/resources/resource-manager/Microsoft.Authorization/policy/stable/2025-03-01/
 * policyTokens.json`), the one the Azure CLI, Azure PowerShell and the Go SDK send
 * (test/contracts/fixtures/change-safety/SOURCES.md). 2025-11-01 adds `requestDetails` to the
 * answer, which this client does not need.
 *
 * The token is a secret: it is registered with the redactor the moment it arrives, and never
 * put into an error, a log line or stored state.
 */
export const POLICY_TOKEN_API_VERSION = "2025-03-01";
export const POLICY_TOKEN_HEADER = "x-ms-policy-external-evaluations";

/** What the answer may carry (PolicyTokenResponse); fields this client does not read pass. */
const PolicyTokenResponse = z.looseObject({
  result: z.string().optional(),
  message: z.string().optional(),
  retryAfter: z.string().optional(),
  results: z
    .array(
      z.looseObject({
        result: z.string().optional(),
        message: z.string().optional(),
      }),
    )
    .optional(),
  changeReference: z.string().optional(),
  token: z.string().min(1).optional(),
  tokenId: z.string().optional(),
  expiration: z.string().optional(),
});

export interface PolicyTokenRequest {
  subscriptionId: string;
  /** The absolute URI of the write, api-version included, exactly as it is sent. */
  uri: string;
  httpMethod: string;
  /** The write's body, when it has one. */
  content?: unknown;
  changeReference?: string;
}

/** No token (null): Azure issued none because no policy asks for one; the write goes without. */
export type PolicyToken = { token: string; tokenId: string | null } | null;

/**
 * The refusals of the acquire call itself: the answer said `Failed` (an external evaluation, a
 * Change Safety validator, said no: the write must not go) or carried no usable body.
 */
export const POLICY_TOKEN_REFUSED = "PolicyTokenRefused";

export async function acquirePolicyToken(
  arm: ArmClient,
  req: PolicyTokenRequest,
): Promise<Result<PolicyToken, ArmError>> {
  const answer = await arm.request({
    method: "POST",
    path: armPath(
      "subscriptions",
      req.subscriptionId,
      "providers",
      "Microsoft.Authorization",
      "acquirePolicyToken",
    ),
    apiVersion: POLICY_TOKEN_API_VERSION,
    body: {
      operation: {
        uri: req.uri,
        httpMethod: req.httpMethod,
        ...(req.content === undefined ? {} : { content: req.content }),
      },
      ...(req.changeReference ? { changeReference: req.changeReference } : {}),
    },
    schema: PolicyTokenResponse,
    operation: "acquirePolicyToken",
  });
  if (!answer.ok) return answer;
  return readPolicyTokenAnswer(answer.value);
}

/**
 * An acquire answer read for what it says: `Succeeded` with a token (registered as a secret at
 * once), `Succeeded` without one (no policy wants one), or `Failed` (refused, with the per-policy
 * messages; the Go SDK and Terraform's AzAPI provider read it the same way).
 */
export function readPolicyTokenAnswer(
  answer: ArmResponse<z.infer<typeof PolicyTokenResponse>>,
): Result<PolicyToken, ArmError> {
  const body = answer.body;
  const result = body.result?.toLowerCase();
  if (body.token) rememberSecret("arm-policy-token", body.token, 16);
  if (result === "succeeded" || (result === undefined && body.token))
    return {
      ok: true,
      value: body.token ? { token: body.token, tokenId: body.tokenId ?? null } : null,
    };
  const messages = (body.results ?? [])
    .map((r) => r.message?.trim())
    .filter((m): m is string => !!m);
  const why = messages.length > 0 ? messages.join("; ") : (body.message ?? "no details");
  return {
    ok: false,
    error: localError(
      POLICY_TOKEN_REFUSED,
      `acquirePolicyToken answered ${body.result ?? "no result"}: ${excerpt(why)}`,
      answer.attempts,
    ),
  };
}

/**
 * A view of `arm` whose writes (PUT, PATCH, POST, DELETE on a subscription's resources) each
 * first acquire a policy token for exactly that request and carry it; reads, and paths without
 * a subscription (Resource Graph), go as they are. A token refused is the write's failure: the
 * write is not sent. `changeReference`: the change record the writes belong to, if any.
 */
export function withPolicyToken(arm: ArmClient, changeReference?: string): ArmClient {
  return {
    endpoint: arm.endpoint,
    close: () => arm.close(),
    async request<T>(req: ArmRequest<T>) {
      const subscriptionId = /^\/subscriptions\/([^/?]+)/i.exec(req.path)?.[1];
      if (req.method === "GET" || !subscriptionId) return arm.request(req);
      const uri = requestUri(arm.endpoint, req);
      if (!uri)
        return {
          ok: false,
          error: localError("InvalidRequest", `${req.path} is not a path on ${arm.endpoint}`),
        };
      const token = await acquirePolicyToken(arm, {
        subscriptionId: decodeURIComponent(subscriptionId),
        uri,
        httpMethod: req.method,
        ...(req.body === undefined ? {} : { content: req.body }),
        ...(changeReference ? { changeReference } : {}),
      });
      if (!token.ok) return token;
      if (!token.value) return arm.request(req);
      return arm.request({
        ...req,
        headers: { ...req.headers, [POLICY_TOKEN_HEADER]: token.value.token },
      });
    },
  };
}

/** The absolute URI the client sends for `req` (client.ts builds it the same way). */
function requestUri(endpoint: string, req: ArmRequest<unknown>): string | undefined {
  if (!req.path.startsWith("/") || req.path.startsWith("//")) return undefined;
  const url = new URL(`${endpoint}${req.path}`);
  url.searchParams.set("api-version", req.apiVersion);
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
  return url.toString();
}
