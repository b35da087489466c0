import { type Clock, rememberSecret } from "@quiesce/protocol";

/**
 * Structurally @azure/identity's TokenCredential, so the host passes its own credential
 * (managed identity in Azure) and tests pass a stand-in, without this folder importing
 * @azure/identity.
 */
export interface ArmCredential {
  getToken(
    scopes: string | string[],
  ): Promise<{ token: string; expiresOnTimestamp?: number } | null>;
}

/** A token is not reused in its last two minutes, so no request leaves with one about to expire. */
const EXPIRY_MARGIN_MS = 120_000;

/**
 * The bearer token for one scope, asked of the credential when there is none or it is about to
 * expire. `fresh` forgets the held token first: after a 401 the token may have been revoked or
 * rotated (a role assignment changed, a managed identity re-created), and asking again lets the
 * credential hand over a new one.
 */
export function tokenSource(credential: ArmCredential, scope: string, clock: Clock) {
  let held: { token: string; expiresOnTimestamp?: number } | undefined;
  let asking: Promise<{ token: string; expiresOnTimestamp?: number } | null> | undefined;
  return async (fresh: boolean): Promise<string | undefined> => {
    if (fresh) held = undefined;
    // Without an expiry we cannot tell when to stop reusing it: ask every time (the credential
    // keeps its own cache).
    const expires = held?.expiresOnTimestamp;
    if (held && expires !== undefined && expires - EXPIRY_MARGIN_MS > clock.now())
      return held.token;
    // Calls that start together share one request to the credential; a fresh one does not
    // join a request that started before the 401 it answers.
    if (fresh || !asking) {
      const pending = credential.getToken(scope).finally(() => {
        if (asking === pending) asking = undefined;
      });
      asking = pending;
    }
    held = (await asking) ?? undefined;
    if (held) rememberSecret(`token ${scope}`, held.token);
    return held?.token;
  };
}

/**
 * The Authorization header for a call the operator protected with Entra (an HTTP gate, an
 * agentless hook): a token of the app's identity for `scope`, or why there is none, in words.
 */
export async function bearerHeader(
  credential: ArmCredential | undefined,
  scope: string,
): Promise<{ ok: true; value: Record<string, string> } | { ok: false; error: string }> {
  try {
    const token = (await credential?.getToken(scope))?.token;
    // Known from now on: a hook or gate that echoes it back cannot show it (docs/security.md).
    if (token) rememberSecret(`token ${scope}`, token);
    return token
      ? { ok: true, value: { authorization: `Bearer ${token}` } }
      : { ok: false, error: `no token for ${scope}` };
  } catch (e) {
    return { ok: false, error: `no token for ${scope}: ${(e as Error).message}` };
  }
}
