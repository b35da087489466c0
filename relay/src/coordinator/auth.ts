import type { CoordinatorAuth } from "../options";

/** Supplies the bearer token of every report. */
export interface TokenSource {
  token(): Promise<string>;
}

/** Refresh this long before expiry, so a report never carries a token that expires in flight. */
const REFRESH_BEFORE_MS = 5 * 60 * 1000;

export function tokenSource(auth: CoordinatorAuth): TokenSource {
  if (auth.mode === "sharedKey") {
    const key = auth.relayKey;
    return { token: async () => key };
  }
  return managedIdentityTokenSource(auth.scope, auth.clientId);
}

/**
 * The VM's managed identity through @azure/identity. Loaded lazily: it is a large module and a
 * sharedKey relay (local runs, the simulator, 16 relays in one demo process) never needs it.
 */
function managedIdentityTokenSource(scope: string, clientId: string | undefined): TokenSource {
  let cached: { token: string; expiresAt: number } | undefined;
  let credential:
    | { getToken(scope: string): Promise<{ token: string; expiresOnTimestamp: number } | null> }
    | undefined;
  return {
    async token() {
      if (cached && cached.expiresAt - REFRESH_BEFORE_MS > Date.now()) return cached.token;
      if (!credential) {
        const { ManagedIdentityCredential } = await import("@azure/identity");
        credential = clientId
          ? new ManagedIdentityCredential({ clientId })
          : new ManagedIdentityCredential();
      }
      const t = await credential.getToken(scope);
      if (!t) throw new Error(`managed identity returned no token for ${scope}`);
      cached = { token: t.token, expiresAt: t.expiresOnTimestamp };
      return t.token;
    },
  };
}
