import type { TokenCredential } from "@azure/identity";

const loadIdentity = () => import("@azure/identity");

/**
 * An @azure/identity credential made on its first token: the library (and MSAL under it, most
 * of what the package would otherwise parse at start-up) is loaded then, not when the host loads
 * app.js, and never by a coordinator that signs nothing in (a connection string, shared-key
 * relays, no control plane). The package builds the import into its own file
 * (scripts/package/lazyChunks.mjs). A failed load is retried on the next token.
 */
export function lazyCredential(
  make: (identity: Awaited<ReturnType<typeof loadIdentity>>) => TokenCredential,
): TokenCredential {
  let made: Promise<TokenCredential> | undefined;
  return {
    async getToken(scopes, options) {
      made ??= loadIdentity().then(make, (e: unknown) => {
        made = undefined;
        throw e;
      });
      return (await made).getToken(scopes, options);
    },
  };
}
