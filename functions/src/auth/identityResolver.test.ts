import { randomUUID } from "node:crypto";
import { type LocalEntra, startLocalEntra } from "@quiesce/testkit/entra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinatorSettings } from "../config";
import { optionsFrom } from "../options";
import {
  AuthUnavailableError,
  authorizeRelayForVm,
  createAuthenticator,
  createGraphIdentityResolver,
} from "./index";

/** The authenticator's options, as start-up builds them from the settings. */
const authOptions = (settings: unknown) => optionsFrom(CoordinatorSettings.parse(settings)).auth;

const RG = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-west/providers";
const VM_A = { name: "web-a", resourceId: `${RG}/Microsoft.Compute/virtualMachines/web-a` };
const VM_B = { name: "web-b", resourceId: `${RG}/Microsoft.Compute/virtualMachines/web-b` };
const SCALE_SET = `${RG}/Microsoft.Compute/virtualMachineScaleSets/WestNO`;
const INSTANCE_0 = { name: "WestNO_0", resourceId: `${SCALE_SET}/virtualMachines/0` };
const USER_ASSIGNED = `${RG}/Microsoft.ManagedIdentity/userAssignedIdentities/relays`;

// Real Entra leaves xms_mirid / xms_az_rid out of tokens for a customer's app: the relay's
// token names only its oid, and the coordinator asks Graph which resource that identity is.
describe("binding a relay whose token carries only its oid, through Graph", () => {
  let entra: LocalEntra;
  beforeAll(async () => {
    entra = await startLocalEntra();
  });
  afterAll(() => entra?.stop());

  const setup = () => {
    const settings = authOptions({
      QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
      ...entra.settings,
    });
    const identityResolver = createGraphIdentityResolver({
      credential: entra.graphCredential,
      graphUrl: entra.graphUrl,
    });
    return createAuthenticator(settings, { identityResolver });
  };
  const relayToken = (oid: string) => entra.mint({ oid, sub: oid, roles: ["Quiesce.Relay"] });

  it("binds a VM's system-assigned identity to that VM, and asks Graph once", async () => {
    const oid = randomUUID();
    entra.registerManagedIdentity(oid, VM_A.resourceId);
    const auth = setup();
    const before = entra.graphRequests;
    const token = await relayToken(oid);
    const results = await Promise.all(
      [1, 2, 3].map(() => auth.authenticate(`Bearer ${token}`, "relay")),
    );
    for (const r of results) {
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(r.value.boundResourceId).toBe(VM_A.resourceId);
      expect(authorizeRelayForVm(r.value, VM_A)).toEqual({ ok: true, value: "vm" });
      expect(authorizeRelayForVm(r.value, VM_B)).toMatchObject({
        ok: false,
        error: { status: 403 },
      });
    }
    expect(entra.graphRequests - before).toBe(1);
  });

  it("binds a scale set's identity at scale-set level", async () => {
    const oid = randomUUID();
    entra.registerManagedIdentity(oid, SCALE_SET);
    const r = await setup().authenticate(`Bearer ${await relayToken(oid)}`, "relay");
    expect(r.ok && authorizeRelayForVm(r.value, INSTANCE_0)).toEqual({
      ok: true,
      value: "scaleSet",
    });
  });

  it("cannot bind a user-assigned identity and says so", async () => {
    const oid = randomUUID();
    entra.registerManagedIdentity(oid, USER_ASSIGNED, "user");
    const r = await setup().authenticate(`Bearer ${await relayToken(oid)}`, "relay");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const decision = authorizeRelayForVm(r.value, VM_A);
    expect(decision).toMatchObject({ ok: false, error: { status: 403 } });
    if (!decision.ok) expect(decision.error.reason).toContain(USER_ASSIGNED);
  });

  it("refuses to bind an identity Graph does not know as a managed identity", async () => {
    const r = await setup().authenticate(`Bearer ${await relayToken(randomUUID())}`, "relay");
    expect(r.ok && authorizeRelayForVm(r.value, VM_A)).toMatchObject({
      ok: false,
      error: { status: 403 },
    });
  });

  it("does not ask Graph for reader or operator requests", async () => {
    const before = entra.graphRequests;
    const token = await entra.mint({ roles: ["Quiesce.Operator"] });
    expect((await setup().authenticate(`Bearer ${token}`, "reader")).ok).toBe(true);
    expect(entra.graphRequests).toBe(before);
  });

  it("throws AuthUnavailableError when Graph fails, and recovers afterwards", async () => {
    const oid = randomUUID();
    entra.registerManagedIdentity(oid, VM_A.resourceId);
    const auth = setup();
    const token = await relayToken(oid);
    entra.failGraphWith(403);
    try {
      await expect(auth.authenticate(`Bearer ${token}`, "relay")).rejects.toBeInstanceOf(
        AuthUnavailableError,
      );
    } finally {
      entra.failGraphWith(undefined);
    }
    const r = await auth.authenticate(`Bearer ${token}`, "relay");
    expect(r.ok && r.value.boundResourceId).toBe(VM_A.resourceId);
  });

  it("prefers the token's own xms_az_rid over Graph", async () => {
    const oid = randomUUID();
    entra.registerManagedIdentity(oid, VM_B.resourceId);
    const before = entra.graphRequests;
    const token = await entra.mint({ oid, roles: ["Quiesce.Relay"], xms_az_rid: VM_A.resourceId });
    const r = await setup().authenticate(`Bearer ${token}`, "relay");
    expect(r.ok && r.value.boundResourceId).toBe(VM_A.resourceId);
    expect(entra.graphRequests).toBe(before);
  });
});
