import type { CoordinatorSettings } from "../config";
import { createEntraAuthenticator, defaultIssuers, defaultJwksUrl } from "./entra";
import type { ManagedIdentityResolver } from "./identityResolver";
import { createSharedKeyAuthenticator } from "./sharedKey";
import type { Authenticator } from "./types";

export {
  authorizeRelayForVm,
  type RelayVmAuthorization,
  type SharedRelayIdentities,
} from "./binding";
export {
  createGraphIdentityResolver,
  type GraphCredential,
  type ManagedIdentityResolver,
} from "./identityResolver";
export {
  type Authenticator,
  type AuthResult,
  AuthUnavailableError,
  type Denial,
  type Principal,
  type Role,
} from "./types";

const list = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** Builds the authenticator QUIESCE_AUTH_MODE selects; throws when its settings are missing. */
export function createAuthenticator(
  settings: CoordinatorSettings,
  opts?: {
    fetchImpl?: typeof fetch;
    /** Entra mode: resolves a relay's identity when its token lacks xms_* claims (see docs/auth.md). */
    identityResolver?: ManagedIdentityResolver;
  },
): Authenticator {
  if (settings.QUIESCE_AUTH_MODE === "sharedKey") {
    return createSharedKeyAuthenticator({
      relayKey: settings.QUIESCE_RELAY_KEY,
      operatorKey: settings.QUIESCE_OPERATOR_KEY,
      ...(settings.QUIESCE_READER_KEY ? { readerKey: settings.QUIESCE_READER_KEY } : {}),
    });
  }
  const tenantId = settings.QUIESCE_ENTRA_TENANT_ID;
  const audiences = list(settings.QUIESCE_ENTRA_AUDIENCE);
  if (audiences.length === 0) throw new Error("QUIESCE_ENTRA_AUDIENCE names no audience");
  const issuers = list(settings.QUIESCE_ENTRA_ISSUERS);
  return createEntraAuthenticator({
    tenantId,
    audiences,
    issuers: issuers.length > 0 ? issuers : defaultIssuers(tenantId),
    jwksUrl: new URL(settings.QUIESCE_ENTRA_JWKS_URL ?? defaultJwksUrl(tenantId)),
    roleNames: {
      relay: settings.QUIESCE_RELAY_ROLE,
      reader: settings.QUIESCE_READER_ROLE,
      operator: settings.QUIESCE_OPERATOR_ROLE,
    },
    ...(opts?.fetchImpl ? { fetchImpl: opts.fetchImpl } : {}),
    ...(opts?.identityResolver ? { identityResolver: opts.identityResolver } : {}),
  });
}
