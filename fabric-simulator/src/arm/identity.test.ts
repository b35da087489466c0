import { ManagedIdentityCredential } from "@azure/identity";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../engine/clock";
import { type FabricSimulator, startFabricSimulator } from "../simulator/simulator";

/**
 * The real `@azure/identity` ManagedIdentityCredential (MSAL underneath), pointed at the
 * simulator's App Service–style token endpoint through IDENTITY_ENDPOINT / IDENTITY_HEADER, gets
 * tokens the loopback ARM accepts, and ARM knows which identity called.
 */

const ARM_SCOPE = "https://management.azure.com/.default";
const saved = { endpoint: process.env.IDENTITY_ENDPOINT, header: process.env.IDENTITY_HEADER };
let sim: FabricSimulator;

beforeAll(async () => {
  sim = await startFabricSimulator({ clock: new ManualClock() });
  // Before any credential exists: MSAL picks its managed-identity source from the environment.
  process.env.IDENTITY_ENDPOINT = sim.identity.endpoint;
  process.env.IDENTITY_HEADER = sim.identity.header;
});

afterAll(async () => {
  for (const [key, value] of [
    ["IDENTITY_ENDPOINT", saved.endpoint],
    ["IDENTITY_HEADER", saved.header],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await sim.stop();
});

afterEach(() => sim.reset());

const get = (path: string, token: string) =>
  fetch(`${sim.armUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe("managed identity token endpoint", () => {
  it("gives ManagedIdentityCredential a token for ARM that reads a VM as the system-assigned identity", async () => {
    const credential = new ManagedIdentityCredential();
    const token = await credential.getToken(ARM_SCOPE);
    expect(token.token).toMatch(/^[\w-]{20,}$/);
    expect(token.expiresOnTimestamp).toBeGreaterThan(Date.now() + 3600_000);

    const vm = sim.state().vms["web-0"];
    const res = await get(`${vm?.resourceId}?api-version=2024-07-01`, token.token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { properties: { vmId: string } }).properties.vmId).toBe(vm?.vmId);
    const [logged] = sim.arm.requests();
    expect(logged).toMatchObject({
      method: "GET",
      path: vm?.resourceId,
      apiVersion: "2024-07-01",
      principalId: sim.identity.principalId,
      status: 200,
    });
  });

  it("serves a user-assigned identity by client_id, and ARM refuses it until it holds a role", async () => {
    const uami = sim.arm.registerIdentity({ name: "quiesce-coordinator" });
    const credential = new ManagedIdentityCredential({ clientId: uami.clientId });
    const { token } = await credential.getToken(ARM_SCOPE);
    const pool = "/providers/Microsoft.Network/loadBalancers/lb-web/backendAddressPools/web";
    const path = `${sim.arm.resourceGroupId()}${pool}?api-version=2024-05-01`;

    const refused = await get(path, token);
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("AuthorizationFailed");
    expect(body.error.message).toContain(`The client '${uami.principalId}'`);
    expect(body.error.message).toContain(
      "'Microsoft.Network/loadBalancers/backendAddressPools/read'",
    );

    sim.arm.grant({ principalId: uami.principalId, role: "Reader", actions: ["*/read"] });
    expect((await get(path, token)).status).toBe(200);
    expect(sim.arm.requests().map((r) => [r.principalId, r.status])).toEqual([
      [uami.principalId, 403],
      [uami.principalId, 200],
    ]);
  });

  it("answers like App Service to a missing or wrong X-IDENTITY-HEADER and to an unknown identity", async () => {
    const url = `${sim.identity.endpoint}?api-version=2019-08-01&resource=https://management.azure.com`;
    expect((await fetch(url)).status).toBe(400);
    expect((await fetch(url, { headers: { "x-identity-header": "guess" } })).status).toBe(401);
    const h = { headers: { "x-identity-header": sim.identity.header } };
    expect((await fetch(`${url}&client_id=00000000-0000-0000-0000-000000000001`, h)).status).toBe(
      400,
    );
    const ok = await fetch(url, h);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      resource: "https://management.azure.com",
      token_type: "Bearer",
      client_id: sim.identity.clientId,
      expires_on: expect.stringMatching(/^\d{10}$/),
    });
  });

  it("refuses a token issued for another audience", async () => {
    const credential = new ManagedIdentityCredential();
    const { token } = await credential.getToken("api://quiesce/.default");
    const res = await get(
      `${sim.arm.resourceGroupId()}/providers/Microsoft.Compute/virtualMachines/web-0?api-version=2024-07-01`,
      token,
    );
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      "InvalidAuthenticationTokenAudience",
    );
  });
});
