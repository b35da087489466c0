import { describe, expect, it } from "vitest";
import { useArmSim } from "../testing/useArmSim";
import type { BackendView } from "./loadBalancers";
import { armCall, errorCode } from "./probe";

/**
 * A backend pool over ARM (GET, PUT with If-Match, admin state only), and the simulated traffic
 * it steers: a backend set Down gets no new requests; one whose VM is in a Started event drops
 * requests until the health probe notices (admin state None) or for as long as it lasts (Up).
 */

const arm = useArmSim();

const poolPath = () =>
  `${arm.sim.arm.resourceGroupId()}/providers/Microsoft.Network/loadBalancers/lb-web/backendAddressPools/web?api-version=2024-05-01`;

interface Pool {
  etag: string;
  properties: {
    loadBalancerBackendAddresses: Array<{
      name: string;
      properties: { networkInterfaceIPConfiguration: { id: string }; adminState: string };
    }>;
  };
}

async function getPool(): Promise<Pool> {
  const r = await armCall(arm.sim.armUrl, arm.token, "GET", poolPath());
  expect(r.status).toBe(200);
  return r.body as Pool;
}

const put = (body: unknown, ifMatch?: string) =>
  armCall(arm.sim.armUrl, arm.token, "PUT", poolPath(), {
    body,
    ...(ifMatch !== undefined ? { headers: { "if-match": ifMatch } } : {}),
  });

/** The pool as read, with one address's admin state changed. */
function withAdminState(pool: Pool, vm: string, adminState: string): Pool {
  const addresses = pool.properties.loadBalancerBackendAddresses.map((a) =>
    a.name.startsWith(`${vm}_`) ? { ...a, properties: { ...a.properties, adminState } } : a,
  );
  return { ...pool, properties: { ...pool.properties, loadBalancerBackendAddresses: addresses } };
}

const backends = (): Record<string, BackendView> =>
  Object.fromEntries(
    (arm.sim.loadBalancers()[0]?.pools[0]?.backends ?? []).map((b) => [b.vm, b] as const),
  );

describe("backend pool over ARM", () => {
  it("lists each VM's NIC ipconfig with admin state None, under a weak etag", async () => {
    const pool = await getPool();
    expect(pool.etag).toMatch(/^W\/"[0-9a-f-]{36}"$/);
    expect(pool.properties.loadBalancerBackendAddresses).toHaveLength(4);
    expect(pool.properties.loadBalancerBackendAddresses[0]).toEqual({
      name: "web-0_ipconfig1",
      properties: {
        networkInterfaceIPConfiguration: {
          id: `${arm.sim.arm.resourceGroupId()}/providers/Microsoft.Network/networkInterfaces/web-0-nic/ipConfigurations/ipconfig1`,
        },
        adminState: "None",
      },
    });
  });

  it("changes an admin state on a PUT whose If-Match holds, with a new etag; 412 otherwise", async () => {
    const pool = await getPool();
    const stale = await put(
      withAdminState(pool, "web-1", "Down"),
      'W/"00000000-0000-0000-0000-000000000000"',
    );
    expect([stale.status, errorCode(stale)]).toEqual([412, "PreconditionFailed"]);
    expect(backends()["web-1"]?.adminState).toBe("None");

    const r = await put(withAdminState(pool, "web-1", "Down"), pool.etag);
    expect(r.status).toBe(200);
    const after = r.body as Pool;
    expect(after.etag).not.toBe(pool.etag);
    expect(after.properties.loadBalancerBackendAddresses[1]?.properties.adminState).toBe("Down");
    expect((await getPool()).etag).toBe(after.etag);
    expect(backends()["web-1"]?.adminState).toBe("Down");
    // The etag it replaced no longer holds.
    expect((await put(withAdminState(pool, "web-1", "Up"), pool.etag)).status).toBe(412);
  });

  it("lets only one of two concurrent PUTs with the same If-Match through", async () => {
    const pool = await getPool();
    const answers = await Promise.all([
      put(withAdminState(pool, "web-0", "Down"), pool.etag),
      put(withAdminState(pool, "web-3", "Down"), pool.etag),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const down = Object.values(backends()).filter((b) => b.adminState === "Down");
    expect(down).toHaveLength(1);
  });

  it("refuses any change but admin state, and a body that is not JSON", async () => {
    const pool = await getPool();
    const addresses = pool.properties.loadBalancerBackendAddresses;
    const without = { properties: { loadBalancerBackendAddresses: addresses.slice(1) } };
    expect(errorCode(await put(without))).toBe("InvalidRequestFormat");
    const extra = { name: "x", properties: { ipAddress: "10.0.0.9" } };
    expect(
      (await put({ properties: { loadBalancerBackendAddresses: [...addresses, extra] } })).status,
    ).toBe(400);
    expect((await put(withAdminState(pool, "web-0", "Sideways"))).status).toBe(400);
    const raw = await fetch(`${arm.sim.armUrl}${poolPath()}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${arm.token}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe(
      "InvalidRequestContent",
    );
    expect((await getPool()).etag).toBe(pool.etag);
  });
});

describe("simulated traffic", () => {
  it("spreads requests round-robin, and a backend set Down gets no new ones", async () => {
    arm.sim.advance(60); // 10 requests a simulated second over 4 backends
    expect(Object.values(backends()).map((b) => b.routed)).toEqual([150, 150, 150, 150]);
    const pool = await getPool();
    expect((await put(withAdminState(pool, "web-1", "Down"), pool.etag)).status).toBe(200);
    arm.sim.advance(60);
    const b = backends();
    expect(b["web-1"]?.routed).toBe(150);
    expect([b["web-0"]?.routed, b["web-2"]?.routed, b["web-3"]?.routed]).toEqual([350, 350, 350]);
    expect(arm.sim.loadBalancers()[0]).toMatchObject({ total: 1200, unrouted: 0 });
  });

  it("drops requests to a VM in a Started event until the probe notices, none when it was set Down first", async () => {
    arm.sim.schedule({
      eventType: "Reboot",
      resources: ["web-2"],
      startImmediately: true,
      startedSeconds: 120,
    });
    arm.sim.advance(60);
    const seen = backends()["web-2"];
    // The probe (15 s) took it out: 15 s × 10/s over 4 backends, all dropped, then nothing.
    expect(seen?.dropped).toBeGreaterThanOrEqual(37);
    expect(seen?.dropped).toBeLessThanOrEqual(38);
    expect(seen?.routed).toBe(seen?.dropped);

    arm.sim.reset();
    arm.sim.setAdminState("lb-web", "web", "web-2", "Down");
    arm.sim.schedule({
      eventType: "Reboot",
      resources: ["web-2"],
      startImmediately: true,
      startedSeconds: 120,
    });
    arm.sim.advance(60);
    expect(backends()["web-2"]).toMatchObject({ routed: 0, dropped: 0 });
    expect(Object.values(backends()).reduce((n, x) => n + x.dropped, 0)).toBe(0);
  });

  it("keeps sending to a backend whose admin state is Up, down or not", () => {
    arm.sim.setAdminState("lb-web", "web", "web-3", "Up");
    arm.sim.schedule({
      eventType: "Reboot",
      resources: ["web-3"],
      startImmediately: true,
      startedSeconds: 40,
    });
    arm.sim.advance(60);
    // Started for 40 s: all of those requests dropped, the last 20 s served.
    expect(backends()["web-3"]).toMatchObject({ routed: 150, dropped: 100 });
  });
});
