import { errors, type JWTVerifyGetKey, jwtVerify } from "jose";
import { parseBearer } from "./bearer";
import { EntraClaims, principalFromClaims } from "./entraClaims";
import type { ManagedIdentityResolver } from "./identityResolver";
import { signingKeys } from "./jwks";
import { type AppRoleNames, requireRole } from "./roles";
import { type Authenticator, AuthUnavailableError, type Role } from "./types";

export interface EntraOptions {
  tenantId: string;
  /** Accepted `aud` values (app id URI and/or client id). */
  audiences: string[];
  /** Accepted `iss` values. */
  issuers: string[];
  jwksUrl: URL;
  roleNames: AppRoleNames;
  fetchImpl?: typeof fetch;
  /** Finds a relay identity's resource when its token carries neither xms_az_rid nor xms_mirid. */
  identityResolver?: ManagedIdentityResolver;
}

/** Clock skew tolerated on exp/nbf/iat: small, tokens live ~1 h and relays refresh early. */
const CLOCK_TOLERANCE_SECONDS = 60;

export const defaultIssuers = (tenantId: string) => [
  `https://sts.windows.net/${tenantId}/`,
  `https://login.microsoftonline.com/${tenantId}/v2.0`,
];
export const defaultJwksUrl = (tenantId: string) =>
  `https://login.microsoftonline.com/${tenantId}/discovery/v2.0/keys`;

/** Errors caused by the token itself (401); anything else means the keys could not be used. */
const TOKEN_FAULTS = new Set([
  "ERR_JWT_EXPIRED",
  "ERR_JWT_CLAIM_VALIDATION_FAILED",
  "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
  "ERR_JWS_INVALID",
  "ERR_JWT_INVALID",
  "ERR_JOSE_ALG_NOT_ALLOWED",
  "ERR_JOSE_NOT_SUPPORTED",
]);

function describeTokenFault(e: errors.JOSEError): string {
  if (e instanceof errors.JWTExpired) return "token expired";
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "iss") return "token issuer is not accepted";
    if (e.claim === "aud") return "token audience is not accepted";
    if (e.claim === "nbf") return "token is not valid yet";
    return `token claim ${e.claim} is invalid (${e.reason})`;
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return "token signature is invalid";
  if (e instanceof errors.JWKSNoMatchingKey) return "token is not signed by a key of the tenant";
  if (e instanceof errors.JOSEAlgNotAllowed) return "token signing algorithm is not accepted";
  return "token is malformed";
}

const MISSING = (names: AppRoleNames): Record<Role, string> => ({
  relay: `the app role ${names.relay} is required`,
  reader: `the app role ${names.reader} (or ${names.operator}) is required`,
  operator: `the app role ${names.operator} is required`,
});

/**
 * Entra leaves the xms_* claims out of managed-identity tokens for customer apps: for a relay
 * request whose token has neither, ask the resolver (Graph) which resource the identity is.
 */
async function withResolvedIdentity(
  claims: EntraClaims,
  need: Role,
  options: EntraOptions,
): Promise<EntraClaims> {
  const resolver = options.identityResolver;
  if (need !== "relay" || !resolver || !claims.oid || claims.xms_az_rid || claims.xms_mirid)
    return claims;
  if (!claims.roles?.includes(options.roleNames.relay)) return claims;
  const resourceId = await resolver.resourceIdOf(claims.oid);
  return resourceId ? { ...claims, xms_mirid: resourceId } : claims;
}

/** Azure mode: Entra access tokens (managed identities for relays, users or apps for operators). */
export function createEntraAuthenticator(options: EntraOptions): Authenticator {
  const keys: JWTVerifyGetKey = signingKeys(options.jwksUrl, options.fetchImpl);
  const tenant = options.tenantId.toLowerCase();
  const missing = MISSING(options.roleNames);

  return {
    async authenticate(authorization, need) {
      const bearer = parseBearer(authorization);
      if (!bearer.ok) return { ok: false, error: { status: 401, reason: bearer.error } };

      let payload: unknown;
      try {
        ({ payload } = await jwtVerify(bearer.value, keys, {
          issuer: options.issuers,
          audience: options.audiences,
          algorithms: ["RS256"],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ["exp", "tid"],
        }));
      } catch (e) {
        if (e instanceof errors.JOSEError && TOKEN_FAULTS.has(e.code))
          return { ok: false, error: { status: 401, reason: describeTokenFault(e) } };
        if (e instanceof AuthUnavailableError) throw e;
        throw new AuthUnavailableError(
          `cannot verify tokens: signing keys unavailable from ${options.jwksUrl} (${e instanceof Error ? e.message : String(e)})`,
          { cause: e },
        );
      }

      const claims = EntraClaims.safeParse(payload);
      if (!claims.success)
        return { ok: false, error: { status: 401, reason: "token claims are malformed" } };
      // Entra signs every tenant's tokens with the same keys; the issuer names the tenant, and
      // tid is checked as well in case QUIESCE_ENTRA_ISSUERS was widened.
      if (claims.data.tid.toLowerCase() !== tenant)
        return { ok: false, error: { status: 401, reason: "token is from another tenant" } };
      const identity = await withResolvedIdentity(claims.data, need, options);
      const principal = principalFromClaims(identity, options.roleNames);
      if (!principal)
        return { ok: false, error: { status: 401, reason: "token has neither oid nor sub" } };
      return requireRole(principal, need, missing[need]);
    },
  };
}
