import type { Result } from "@quiesce/protocol";
/** The three things a caller may be allowed to do; app roles and shared keys map onto these. */
export type Role = "relay" | "reader" | "operator";

export interface Principal {
  /** Entra: `oid` (else `sub`); sharedKey: "relay-key" / "operator-key". */
  id: string;
  /** operator implies reader. */
  roles: Role[];
  /**
   * Entra relay tokens: the compute resource id the token is bound to (from `xms_az_rid`, else
   * `xms_mirid` when that is a VM or scale set).
   */
  boundResourceId?: string;
  /** For audit logs: name/appid/oid, never the token. */
  display: string;
  /**
   * How the caller proved itself. Only a "sharedKey" principal may report for any VM; anything
   * else (including a principal built by hand without this field) must carry a binding.
   */
  kind?: "entra" | "sharedKey";
  /** Entra: the managed identity's own resource id (`xms_mirid`), to explain a missing binding. */
  identityResourceId?: string;
}

/** Why a caller is turned away: 401 (who are you?), 403 (not allowed), 503 (cannot check now). */
export interface Denial {
  status: 401 | 403 | 503;
  reason: string;
  /**
   * The token is a relay's but names no VM or scale set (a user-assigned identity not declared
   * shared): under `attestation: require` the attested document binds the report instead.
   */
  unbindable?: true;
}

export type AuthResult = Result<Principal, Denial>;

export interface Authenticator {
  /** Validates the Authorization header ("Bearer <token or key>"); 401 when missing/invalid, 403 when valid but lacking `need`. */
  authenticate(authorization: string | null, need: Role): Promise<AuthResult>;
}

/**
 * The coordinator could not check a token because the signing keys were unreachable or
 * unusable. Not the caller's fault: handlers answer 503 so the relay retries, instead of a 401
 * that would blame a token that may well be valid.
 */
export class AuthUnavailableError extends Error {
  override name = "AuthUnavailableError";
}
