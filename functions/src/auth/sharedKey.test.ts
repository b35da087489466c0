import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CoordinatorSettings } from "../config";
import { optionsFrom } from "../options";
import { authorizeRelayForVm, createAuthenticator } from "./index";

/** The authenticator's options, as start-up builds them from the settings. */
const authOptions = (settings: unknown) => optionsFrom(CoordinatorSettings.parse(settings)).auth;

const relayKey = randomBytes(32).toString("base64url");
const operatorKey = randomBytes(32).toString("base64url");
const auth = createAuthenticator(
  authOptions({
    QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
    QUIESCE_AUTH_MODE: "sharedKey",
    QUIESCE_RELAY_KEY: relayKey,
    QUIESCE_OPERATOR_KEY: operatorKey,
  }),
);
const VM = {
  name: "web-a",
  resourceId:
    "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-a",
};

describe("sharedKey mode", () => {
  it("accepts the relay key for reports, for any VM", async () => {
    const result = await auth.authenticate(`Bearer ${relayKey}`, "relay");
    expect(result).toEqual({
      ok: true,
      value: { id: "relay-key", roles: ["relay"], display: "relay-key", kind: "sharedKey" },
    });
    if (result.ok)
      expect(authorizeRelayForVm(result.value, VM)).toEqual({ ok: true, value: "any" });
  });

  it("does not let the relay key read status or act as operator", async () => {
    expect(await auth.authenticate(`Bearer ${relayKey}`, "reader")).toMatchObject({
      ok: false,
      error: { status: 403 },
    });
    expect(await auth.authenticate(`Bearer ${relayKey}`, "operator")).toMatchObject({
      ok: false,
      error: { status: 403 },
    });
  });

  it("lets the operator key read and act, but not report", async () => {
    const reader = await auth.authenticate(`Bearer ${operatorKey}`, "reader");
    expect(reader).toMatchObject({
      ok: true,
      value: { id: "operator-key", roles: ["operator", "reader"] },
    });
    expect((await auth.authenticate(`bearer ${operatorKey}`, "operator")).ok).toBe(true);
    expect(await auth.authenticate(`Bearer ${operatorKey}`, "relay")).toMatchObject({
      ok: false,
      error: { status: 403 },
    });
  });

  it("refuses a wrong, truncated, extended or missing key with 401", async () => {
    for (const header of [
      `Bearer ${randomBytes(32).toString("base64url")}`,
      `Bearer ${relayKey.slice(0, -1)}`,
      `Bearer ${relayKey}x`,
      `Basic ${relayKey}`,
      relayKey,
      null,
    ]) {
      expect(await auth.authenticate(header, "relay")).toMatchObject({
        ok: false,
        error: { status: 401 },
      });
    }
  });

  it("never echoes the presented key in an error", async () => {
    const wrong = randomBytes(32).toString("base64url");
    const result = await auth.authenticate(`Bearer ${wrong}`, "relay");
    expect(JSON.stringify(result)).not.toContain(wrong);
  });

  it("refuses to start with the same key for relays and operators", () => {
    const settings = authOptions({
      QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
      QUIESCE_AUTH_MODE: "sharedKey",
      QUIESCE_RELAY_KEY: relayKey,
      QUIESCE_OPERATOR_KEY: relayKey,
    });
    expect(() => createAuthenticator(settings)).toThrow(/must differ/);
  });
});
