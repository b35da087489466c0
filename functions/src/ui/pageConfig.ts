import { type AuthOptions, settingName } from "../options";

/**
 * What the status page needs to sign in, derived from the coordinator's own settings so there is
 * nothing extra to configure. It holds no secret: locally the page asks for a key, in Azure it
 * signs the user in to the coordinator's app registration.
 */
export type PageConfig =
  | { auth: "sharedKey" }
  | { auth: "entra"; clientId: string; authority: string; scopes: string[] };

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function pageConfig(auth: AuthOptions): PageConfig {
  if (auth.mode === "sharedKey") return { auth: "sharedKey" };
  const { audiences } = auth;
  // create-app.sh makes the identifier URI api://<appId>, so either form names the client id.
  const clientId = audiences.map((a) => a.replace(/^api:\/\//, "")).find((a) => GUID.test(a));
  const appIdUri = audiences.find((a) => a.startsWith("api://")) ?? `api://${clientId}`;
  if (!clientId)
    throw new Error(`${settingName("ENTRA_AUDIENCE")} names no app registration client id`);
  return {
    auth: "entra",
    clientId,
    authority: `https://login.microsoftonline.com/${auth.tenantId}`,
    // The delegated scope create-app.sh publishes; the user's app roles ride in the token.
    scopes: [`${appIdUri}/user_impersonation`],
  };
}
