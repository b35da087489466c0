import {
  type AccountInfo,
  InteractionRequiredAuthError,
  PublicClientApplication,
} from "@azure/msal-browser";
import type { PageConfig } from "./api";

/**
 * How the page proves who it is. Locally: the operator or reader key `npm start` prints, typed
 * in by the user and kept only in this tab's sessionStorage. In Azure: an Entra access token for
 * the coordinator's app registration, from MSAL (authorization code flow with PKCE).
 */
export interface SignIn {
  mode: PageConfig["auth"];
  /** A credential for the Authorization header, or null when the user must sign in first. */
  credential(): Promise<string | null>;
  /** Key mode: remembers the key; Entra mode: redirects to the Microsoft sign-in page. */
  signIn(key?: string): Promise<void>;
  signOut(): Promise<void>;
}

const KEY_SLOT = "quiesce.key";

export function keySignIn(): SignIn {
  return {
    mode: "sharedKey",
    credential: async () => sessionStorage.getItem(KEY_SLOT),
    async signIn(key) {
      if (key) sessionStorage.setItem(KEY_SLOT, key.trim());
    },
    async signOut() {
      sessionStorage.removeItem(KEY_SLOT);
    },
  };
}

export async function entraSignIn(config: Extract<PageConfig, { auth: "entra" }>): Promise<SignIn> {
  const msal = new PublicClientApplication({
    auth: {
      clientId: config.clientId,
      authority: config.authority,
      // The SPA redirect URI registered by scripts/entra/add-page-redirect.sh.
      redirectUri: `${location.origin}/api/ui`,
    },
    cache: { cacheLocation: "sessionStorage" },
  });
  await msal.initialize();
  const back = await msal.handleRedirectPromise();
  let account: AccountInfo | null = back?.account ?? msal.getAllAccounts()[0] ?? null;
  if (account) msal.setActiveAccount(account);
  const request = () => ({ scopes: config.scopes, ...(account ? { account } : {}) });
  return {
    mode: "entra",
    async credential() {
      if (!account) return null;
      try {
        return (await msal.acquireTokenSilent({ scopes: config.scopes, account })).accessToken;
      } catch (e) {
        if (e instanceof InteractionRequiredAuthError) {
          await msal.acquireTokenRedirect(request());
          return null;
        }
        throw e;
      }
    },
    async signIn() {
      await msal.loginRedirect(request());
    },
    async signOut() {
      const a = account;
      account = null;
      await msal.logoutRedirect({
        ...(a ? { account: a } : {}),
        postLogoutRedirectUri: `${location.origin}/api/ui`,
      });
    },
  };
}
