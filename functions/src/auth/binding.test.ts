import { type LocalEntra, startLocalEntra } from "@quiesce/testkit/entra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinatorSettings } from "../config";
import { optionsFrom } from "../options";
import {
  type Authenticator,
  authorizeRelayForVm,
  createAuthenticator,
  type Principal,
} from "./index";

/** The authenticator's options, as start-up builds them from the settings. */
const authOptions = (settings: unknown) => optionsFrom(CoordinatorSettings.parse(settings)).auth;

const RG =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-west/providers/Microsoft.Compute";
const VM_A = { name: "web-a", resourceId: `${RG}/virtualMachines/web-a` };
const VM_B = { name: "web-b", resourceId: `${RG}/virtualMachines/web-b` };
const SCALE_SET = `${RG}/virtualMachineScaleSets/WestNO`;
const INSTANCE_0 = { name: "WestNO_0", resourceId: `${SCALE_SET}/virtualMachines/0` };
const INSTANCE_1 = { name: "WestNO_1", resourceId: `${SCALE_SET}/virtualMachines/1` };
const OTHER_SET_INSTANCE = {
  name: "EastNO_0",
  resourceId: `${RG}/virtualMachineScaleSets/EastNO/virtualMachines/0`,
};
const USER_ASSIGNED =
  "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-west/providers/Microsoft.ManagedIdentity/userAssignedIdentities/relays";

describe("binding a relay's Entra identity to the VM it reports for", () => {
  let entra: LocalEntra;
  let auth: Authenticator;
  beforeAll(async () => {
    entra = await startLocalEntra();
    auth = createAuthenticator(
      authOptions({
        QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
        ...entra.settings,
      }),
    );
  });
  afterAll(() => entra?.stop());

  /** A real token through the real authenticator, then the binding decision. */
  const relayPrincipal = async (claims: Record<string, unknown>): Promise<Principal> => {
    const result = await auth.authenticate(
      `Bearer ${await entra.mint({ roles: ["Quiesce.Relay"], ...claims })}`,
      "relay",
    );
    if (!result.ok) throw new Error(`expected a valid relay token: ${result.error}`);
    return result.value;
  };

  it("binds a VM's system-assigned identity (xms_mirid only) to that VM", async () => {
    const p = await relayPrincipal({ xms_mirid: VM_A.resourceId });
    expect(authorizeRelayForVm(p, VM_A)).toEqual({ ok: true, value: "vm" });
  });

  it("compares resource ids case-insensitively, as ARM does", async () => {
    const p = await relayPrincipal({
      xms_az_rid: VM_A.resourceId.toLowerCase(),
      xms_mirid: VM_A.resourceId.toLowerCase(),
    });
    expect(
      authorizeRelayForVm(p, { name: "WEB-A", resourceId: VM_A.resourceId.toUpperCase() }),
    ).toEqual({
      ok: true,
      value: "vm",
    });
  });

  it("refuses a report for another VM, naming both resource ids", async () => {
    const p = await relayPrincipal({ xms_mirid: VM_A.resourceId, xms_az_rid: VM_A.resourceId });
    const result = authorizeRelayForVm(p, VM_B);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.status).toBe(403);
    expect(result.error.reason).toContain(VM_A.resourceId);
    expect(result.error.reason).toContain(VM_B.resourceId);
  });

  it("refuses a report whose VM name is not the name its resource id carries", async () => {
    const p = await relayPrincipal({ xms_mirid: VM_A.resourceId });
    const result = authorizeRelayForVm(p, { name: "web-b", resourceId: VM_A.resourceId });
    expect(result).toMatchObject({
      ok: false,
      error: { status: 403, reason: expect.stringMatching(/does not match its resourceId/) },
    });
  });

  it("binds a scale set's identity at scale-set level: any instance of that set", async () => {
    const p = await relayPrincipal({ xms_mirid: SCALE_SET, xms_az_rid: SCALE_SET });
    expect(authorizeRelayForVm(p, INSTANCE_0)).toEqual({ ok: true, value: "scaleSet" });
    expect(authorizeRelayForVm(p, INSTANCE_1)).toEqual({ ok: true, value: "scaleSet" });
    expect(authorizeRelayForVm(p, OTHER_SET_INSTANCE)).toMatchObject({
      ok: false,
      error: { status: 403 },
    });
    expect(authorizeRelayForVm(p, VM_A)).toMatchObject({ ok: false, error: { status: 403 } });
  });

  it("binds a scale-set instance exactly when the token names the instance", async () => {
    const p = await relayPrincipal({ xms_mirid: SCALE_SET, xms_az_rid: INSTANCE_0.resourceId });
    expect(authorizeRelayForVm(p, INSTANCE_0)).toEqual({ ok: true, value: "vm" });
    expect(authorizeRelayForVm(p, INSTANCE_1)).toMatchObject({ ok: false, error: { status: 403 } });
  });

  it("refuses a user-assigned identity without xms_az_rid, explaining why it cannot be bound", async () => {
    const p = await relayPrincipal({ xms_mirid: USER_ASSIGNED });
    expect(p.boundResourceId).toBeUndefined();
    const result = authorizeRelayForVm(p, VM_A);
    expect(result).toMatchObject({ ok: false, error: { status: 403 } });
    if (!result.ok) {
      expect(result.error.reason).toContain(USER_ASSIGNED);
      expect(result.error.reason).toMatch(/user-assigned identity can be shared by many VMs/);
    }
  });

  it("binds a user-assigned identity through xms_az_rid", async () => {
    const p = await relayPrincipal({ xms_mirid: USER_ASSIGNED, xms_az_rid: VM_A.resourceId });
    expect(authorizeRelayForVm(p, VM_A)).toEqual({ ok: true, value: "vm" });
    expect(authorizeRelayForVm(p, VM_B)).toMatchObject({ ok: false, error: { status: 403 } });
  });

  it("binds a shared identity the operator named (an AKS kubelet identity) to its scale sets only", async () => {
    const p = await relayPrincipal({ xms_mirid: USER_ASSIGNED });
    const shared = new Map([[USER_ASSIGNED.toLowerCase(), [SCALE_SET.toUpperCase()]]]);
    expect(authorizeRelayForVm(p, INSTANCE_1, shared)).toEqual({ ok: true, value: "scaleSet" });
    // A Flexible instance: a plain VM id, its scale set named by IMDS.
    const flexible = { ...VM_A, vmScaleSetName: "westno" };
    expect(authorizeRelayForVm(p, flexible, shared)).toEqual({ ok: true, value: "scaleSet" });
    const other = authorizeRelayForVm(p, OTHER_SET_INSTANCE, shared);
    expect(other).toMatchObject({ ok: false, error: { status: 403 } });
    if (!other.ok)
      expect(other.error.reason).toMatch(/QUIESCE_SHARED_RELAY_IDENTITIES allows only/);
    expect(authorizeRelayForVm(p, VM_A, shared)).toMatchObject({ ok: false });
    expect(authorizeRelayForVm(p, { ...INSTANCE_0, name: "WestNO_1" }, shared)).toMatchObject({
      ok: false,
    });
  });

  it("refuses a token carrying no identity resource at all", async () => {
    const p = await relayPrincipal({});
    expect(authorizeRelayForVm(p, VM_A)).toMatchObject({
      ok: false,
      error: { status: 403, reason: expect.stringMatching(/no xms_mirid/) },
    });
  });

  it("refuses a reported resource id that is not a VM", async () => {
    const p = await relayPrincipal({ xms_mirid: SCALE_SET });
    expect(authorizeRelayForVm(p, { name: "WestNO", resourceId: SCALE_SET })).toMatchObject({
      ok: false,
      error: { status: 403, reason: expect.stringMatching(/not a virtual machine resource id/) },
    });
  });
});

describe("authorizeRelayForVm without a token binding", () => {
  it("lets the relay key report for any VM", () => {
    const relayKey: Principal = {
      id: "relay-key",
      roles: ["relay"],
      display: "relay-key",
      kind: "sharedKey",
    };
    expect(authorizeRelayForVm(relayKey, VM_B)).toEqual({ ok: true, value: "any" });
  });

  it("fails closed for a principal that is neither a shared key nor bound", () => {
    const handMade: Principal = { id: "relay-key", roles: ["relay"], display: "relay-key" };
    expect(authorizeRelayForVm(handMade, VM_A)).toMatchObject({
      ok: false,
      error: { status: 403 },
    });
  });

  it("refuses a principal without the relay role", () => {
    const operator: Principal = {
      id: "operator-key",
      roles: ["operator", "reader"],
      display: "operator-key",
      kind: "sharedKey",
    };
    expect(authorizeRelayForVm(operator, VM_A)).toMatchObject({
      ok: false,
      error: { status: 403 },
    });
  });
});
