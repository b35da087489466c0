import { describe, expect, it } from "vitest";
import { CoordinatorSettings } from "../config";
import { optionsFrom } from "../options";
import { pageConfig } from "./pageConfig";

const authOf = (settings: unknown) => optionsFrom(CoordinatorSettings.parse(settings)).auth;
const entra = (audience: string) =>
  authOf({
    QUIESCE_TABLE_ENDPOINT: "https://acct.table.core.windows.net",
    QUIESCE_AUTH_MODE: "entra",
    QUIESCE_ENTRA_TENANT_ID: "11111111-2222-3333-4444-555555555555",
    QUIESCE_ENTRA_AUDIENCE: audience,
  });
const APP = "0a1b2c3d-0000-4000-8000-00000000abcd";

describe("the page's sign-in configuration", () => {
  it("is the app registration behind QUIESCE_ENTRA_AUDIENCE, in either form, with its delegated scope", () => {
    for (const audience of [`api://${APP}`, `api://${APP},${APP}`, APP])
      expect(pageConfig(entra(audience))).toEqual({
        auth: "entra",
        clientId: APP,
        authority: "https://login.microsoftonline.com/11111111-2222-3333-4444-555555555555",
        scopes: [`api://${APP}/user_impersonation`],
      });
  });

  it("says so when the audience names no client id, and is just the mode for shared keys", () => {
    expect(() => pageConfig(entra("https://quiesce.example.com"))).toThrow(/client id/);
    const local = authOf({
      QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: "r".repeat(20),
      QUIESCE_OPERATOR_KEY: "o".repeat(20),
    });
    expect(pageConfig(local)).toEqual({ auth: "sharedKey" });
  });
});
