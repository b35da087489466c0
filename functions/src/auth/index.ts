import { type AuthOptions, settingName } from "../options";
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

/** Builds the authenticator of the configured mode; throws when its settings are missing. */
export function createAuthenticator(
  options: AuthOptions,
  opts?: {
    fetchImpl?: typeof fetch;
    /** Entra mode: resolves a relay's identity when its token lacks xms_* claims (see docs/auth.md). */
    identityResolver?: ManagedIdentityResolver;
  },
): Authenticator {
  if (options.mode === "sharedKey") {
    return createSharedKeyAuthenticator({
      relayKey: options.relayKey,
      operatorKey: options.operatorKey,
      ...(options.readerKey ? { readerKey: options.readerKey } : {}),
    });
  }
  const { tenantId, audiences, issuers } = options;
  if (audiences.length === 0) throw new Error(`${settingName("ENTRA_AUDIENCE")} names no audience`);
  return createEntraAuthenticator({
    tenantId,
    audiences,
    issuers: issuers.length > 0 ? issuers : defaultIssuers(tenantId),
    jwksUrl: new URL(options.jwksUrl ?? defaultJwksUrl(tenantId)),
    roleNames: options.roles,
    ...(opts?.fetchImpl ? { fetchImpl: opts.fetchImpl } : {}),
    ...(opts?.identityResolver ? { identityResolver: opts.identityResolver } : {}),
  });
}
