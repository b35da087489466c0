import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type LocalEntra, startLocalEntra } from "@quiesce/testkit/entra";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinatorSettings } from "../config";
import { optionsFrom } from "../options";
import { type AuthResult, AuthUnavailableError, createAuthenticator } from "./index";

/** The authenticator's options, as start-up builds them from the settings. */
const authOptions = (settings: unknown) => optionsFrom(CoordinatorSettings.parse(settings)).auth;

const VM_A =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-west/providers/Microsoft.Compute/virtualMachines/WestNO_0";

const settingsFor = (entra: LocalEntra, extra: Record<string, string> = {}) =>
  authOptions({
    QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
    ...entra.settings,
    ...extra,
  });

const bearer = (token: string) => `Bearer ${token}`;
const now = () => Math.floor(Date.now() / 1000);

function expectDenied(result: AuthResult, status: 401 | 403, error: RegExp) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.status).toBe(status);
  expect(result.error.reason).toMatch(error);
}

// Both ways of reaching the signing keys, each over real HTTP on loopback.
describe.each([
  { keys: "jose's remote key set", fetchImpl: undefined },
  { keys: "the given fetch", fetchImpl: globalThis.fetch },
])("entra mode, signing keys through $keys", ({ fetchImpl }) => {
  let entra: LocalEntra;
  let other: LocalEntra;
  beforeAll(async () => {
    [entra, other] = await Promise.all([startLocalEntra(), startLocalEntra()]);
  });
  afterAll(async () => {
    await Promise.all([entra?.stop(), other?.stop()]);
  });
  const auth = () => createAuthenticator(settingsFor(entra), fetchImpl ? { fetchImpl } : undefined);

  it("accepts a relay's managed-identity token and binds it to its VM", async () => {
    const token = await entra.mint({
      ...entra.relayClaims(VM_A),
      oid: "11111111-2222-3333-4444-555555555555",
    });
    const result = await auth().authenticate(bearer(token), "relay");
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({
        id: "11111111-2222-3333-4444-555555555555",
        roles: ["relay"],
        boundResourceId: VM_A,
        kind: "entra",
      }),
    });
    if (result.ok) expect(result.value.display).not.toContain(token);
  });

  it("accepts the tenant's v2 issuer and any configured audience", async () => {
    const a = createAuthenticator(
      settingsFor(entra, { QUIESCE_ENTRA_AUDIENCE: `${entra.audience}, client-id-guid` }),
      fetchImpl ? { fetchImpl } : undefined,
    );
    const token = await entra.mint({
      ...entra.relayClaims(VM_A),
      iss: entra.issuerV2,
      aud: "client-id-guid",
    });
    expect((await a.authenticate(bearer(token), "relay")).ok).toBe(true);
  });

  it("refuses a token signed by a key outside the tenant's key set (same kid)", async () => {
    const token = await entra.mintForged(entra.relayClaims(VM_A));
    expectDenied(await auth().authenticate(bearer(token), "relay"), 401, /signature is invalid/);
  });

  it("refuses a token signed by another issuer's keys", async () => {
    const token = await other.mint({
      ...other.relayClaims(VM_A),
      iss: entra.issuer,
      tid: entra.tenantId,
      aud: entra.audience,
    });
    expectDenied(
      await auth().authenticate(bearer(token), "relay"),
      401,
      /not signed by a key of the tenant/,
    );
  });

  it("refuses a wrong issuer", async () => {
    const token = await entra.mint({ ...entra.relayClaims(VM_A), iss: other.issuer });
    expectDenied(await auth().authenticate(bearer(token), "relay"), 401, /issuer is not accepted/);
  });

  it("refuses a wrong audience", async () => {
    const token = await entra.mint({
      ...entra.relayClaims(VM_A),
      aud: "https://management.azure.com/",
    });
    expectDenied(
      await auth().authenticate(bearer(token), "relay"),
      401,
      /audience is not accepted/,
    );
  });

  it("refuses a token of another tenant even when its issuer is accepted", async () => {
    const token = await entra.mint({ ...entra.relayClaims(VM_A), tid: other.tenantId });
    expectDenied(await auth().authenticate(bearer(token), "relay"), 401, /another tenant/);
  });

  it("refuses a token without tid", async () => {
    const token = await entra.mint({ ...entra.relayClaims(VM_A), tid: undefined });
    expectDenied(await auth().authenticate(bearer(token), "relay"), 401, /tid/);
  });

  it("refuses an expired token but tolerates a few seconds of clock skew", async () => {
    const expired = await entra.mint({
      ...entra.relayClaims(VM_A),
      iat: now() - 7200,
      nbf: now() - 7200,
      exp: now() - 600,
    });
    expectDenied(await auth().authenticate(bearer(expired), "relay"), 401, /expired/);
    const justExpired = await entra.mint({
      ...entra.relayClaims(VM_A),
      iat: now() - 3600,
      exp: now() - 5,
    });
    expect((await auth().authenticate(bearer(justExpired), "relay")).ok).toBe(true);
  });

  it("refuses a token that is not valid yet", async () => {
    const early = await entra.mint({
      ...entra.relayClaims(VM_A),
      nbf: now() + 900,
      exp: now() + 4500,
    });
    expectDenied(await auth().authenticate(bearer(early), "relay"), 401, /not valid yet/);
  });

  it("refuses a missing, non-Bearer or garbage Authorization header", async () => {
    const a = auth();
    expectDenied(await a.authenticate(null, "relay"), 401, /missing Authorization/);
    expectDenied(await a.authenticate("", "relay"), 401, /missing Authorization/);
    expectDenied(
      await a.authenticate("Basic dXNlcjpwYXNz", "relay"),
      401,
      /malformed Authorization/,
    );
    expectDenied(await a.authenticate("Bearer not.a.jwt", "relay"), 401, /malformed/);
  });

  it("refuses an HMAC-signed token (only RS256 is accepted)", async () => {
    const token = await new SignJWT({ ...entra.relayClaims(VM_A), tid: entra.tenantId })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(entra.issuer)
      .setAudience(entra.audience)
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("a-shared-secret-of-enough-length!"));
    expectDenied(
      await auth().authenticate(bearer(token), "relay"),
      401,
      /algorithm is not accepted/,
    );
  });

  it("answers 403 naming the app role when a valid token lacks the needed role", async () => {
    const noRoles = await entra.mint({ xms_mirid: VM_A });
    expectDenied(
      await auth().authenticate(bearer(noRoles), "relay"),
      403,
      /Quiesce\.Relay is required/,
    );
    const relay = await entra.mint(entra.relayClaims(VM_A));
    expectDenied(await auth().authenticate(bearer(relay), "reader"), 403, /Quiesce\.Reader/);
    expectDenied(
      await auth().authenticate(bearer(relay), "operator"),
      403,
      /Quiesce\.Operator is required/,
    );
  });

  it("lets an operator read, and a reader only read", async () => {
    const a = auth();
    const operator = await entra.mint({ roles: ["Quiesce.Operator"], name: "Ops Person" });
    const asReader = await a.authenticate(bearer(operator), "reader");
    expect(asReader.ok && asReader.value.roles.sort()).toEqual(["operator", "reader"]);
    expect(asReader.ok && asReader.value.display).toContain("name=Ops Person");
    expect((await a.authenticate(bearer(operator), "operator")).ok).toBe(true);
    expectDenied(await a.authenticate(bearer(operator), "relay"), 403, /Quiesce\.Relay/);
    const reader = await entra.mint({ roles: ["Quiesce.Reader"] });
    expect((await a.authenticate(bearer(reader), "reader")).ok).toBe(true);
    expectDenied(await a.authenticate(bearer(reader), "operator"), 403, /Quiesce\.Operator/);
  });

  it("uses the configured app role names", async () => {
    const a = createAuthenticator(
      settingsFor(entra, { QUIESCE_RELAY_ROLE: "Custom.Relay" }),
      fetchImpl ? { fetchImpl } : undefined,
    );
    const custom = await entra.mint(entra.relayClaims(VM_A, ["Custom.Relay"]));
    expect((await a.authenticate(bearer(custom), "relay")).ok).toBe(true);
    const standard = await entra.mint(entra.relayClaims(VM_A));
    expectDenied(await a.authenticate(bearer(standard), "relay"), 403, /Custom\.Relay/);
  });

  it("fetches the signing keys once for many tokens", async () => {
    const fresh = await startLocalEntra();
    try {
      const a = createAuthenticator(settingsFor(fresh), fetchImpl ? { fetchImpl } : undefined);
      const tokens = await Promise.all(
        Array.from({ length: 20 }, () => fresh.mint(fresh.relayClaims(VM_A))),
      );
      const results = await Promise.all(tokens.map((t) => a.authenticate(bearer(t), "relay")));
      expect(results.every((r) => r.ok)).toBe(true);
      expect(fresh.jwksRequests).toBe(1);
    } finally {
      await fresh.stop();
    }
  });

  it("throws AuthUnavailableError (not a 401) when the signing keys cannot be fetched", async () => {
    const notFound = createAuthenticator(
      settingsFor(entra, { QUIESCE_ENTRA_JWKS_URL: `${entra.jwksUrl}/missing` }),
      fetchImpl ? { fetchImpl } : undefined,
    );
    const token = await entra.mint(entra.relayClaims(VM_A));
    await expect(notFound.authenticate(bearer(token), "relay")).rejects.toBeInstanceOf(
      AuthUnavailableError,
    );

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = createAuthenticator(
      settingsFor(entra, { QUIESCE_ENTRA_JWKS_URL: `http://127.0.0.1:${port}/keys` }),
      fetchImpl ? { fetchImpl } : undefined,
    );
    await expect(refused.authenticate(bearer(token), "relay")).rejects.toBeInstanceOf(
      AuthUnavailableError,
    );
  });
});
