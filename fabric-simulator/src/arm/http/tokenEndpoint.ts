import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "../../http/io";
import type { IdentityRegistry, IdentitySelector } from "../identity";

/**
 * An App Service–style managed-identity token endpoint (`IDENTITY_ENDPOINT` /
 * `IDENTITY_HEADER`), so the real `@azure/identity` `ManagedIdentityCredential` (MSAL underneath)
 * gets its tokens here unchanged. The request is what MSAL sends and the App Service reference
 * documents: `GET ?api-version=2019-08-01&resource=<audience>`, header `X-IDENTITY-HEADER`, and at
 * most one of `client_id`, `principal_id` (alias `object_id`) or `mi_res_id` for a user-assigned
 * identity. The answer is App Service's: `access_token`, `expires_on` (epoch seconds, as a
 * string), `resource`, `token_type`, `client_id`.
 */

export const TOKEN_PATH = "/msi/token";
const API_VERSION = "2019-08-01";

interface TokenAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** App Service's error shape as MSAL reads it (`message`); the exact wording is not documented. */
const fail = (status: number, message: string): TokenAnswer => ({
  status,
  body: { statusCode: status, message, correlationId: randomUUID() },
});

/** The answer to one token request (issuing the token is its only effect). */
export function tokenAnswer(
  identities: IdentityRegistry,
  method: string | undefined,
  header: string | string[] | undefined,
  query: URLSearchParams,
): TokenAnswer {
  if (method !== "GET") return fail(405, "The token endpoint only answers GET.");
  // The header guards against server-side request forgery: missing is a bad request, a wrong
  // value is refused (App Service answers 400 and 401 respectively, as far as clients report).
  if (header === undefined || header === "")
    return fail(400, "The X-IDENTITY-HEADER header is missing.");
  if (header !== identities.header) return fail(401, "The X-IDENTITY-HEADER is invalid.");
  if (query.get("api-version") !== API_VERSION)
    return fail(400, `api-version must be ${API_VERSION}.`);
  const resource = query.get("resource");
  if (!resource) return fail(400, "The resource parameter is required.");

  const given = (["client_id", "principal_id", "object_id", "mi_res_id"] as const).filter(
    (k) => query.get(k) !== null,
  );
  if (given.length > 1)
    return fail(400, "Only one of client_id, principal_id, object_id or mi_res_id.");
  const key = given[0];
  const value = key === undefined ? "" : (query.get(key) as string);
  const selector: IdentitySelector =
    key === undefined
      ? {}
      : key === "client_id"
        ? { clientId: value }
        : key === "mi_res_id"
          ? { resourceId: value }
          : { principalId: value };
  const identity = identities.find(selector);
  if (!identity) return fail(400, `No managed identity matches ${key}=${value}.`);

  const t = identities.issue(identity, resource);
  return {
    status: 200,
    body: {
      access_token: t.token,
      expires_on: String(t.expiresOn),
      resource,
      token_type: "Bearer",
      client_id: t.clientId,
    },
  };
}

export function handleTokenRequest(
  identities: IdentityRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): void {
  req.resume();
  const { status, body } = tokenAnswer(
    identities,
    req.method,
    req.headers["x-identity-header"],
    query,
  );
  sendJson(res, status, body);
}
