import { describe, expect, it } from "vitest";
import { useArmSim } from "../testing/useArmSim";
import { armCall, errorCode } from "./probe";

/** Injected ARM failures: the next N matching requests answer an error with ARM's body for it. */

const arm = useArmSim();

const pool = () =>
  `${arm.sim.arm.resourceGroupId()}/providers/Microsoft.Network/loadBalancers/lb-web/backendAddressPools/web?api-version=2024-05-01`;
const vm = () =>
  `${arm.sim.arm.resourceGroupId()}/providers/Microsoft.Compute/virtualMachines/web-0?api-version=2024-07-01`;
const get = (path: string) => armCall(arm.sim.armUrl, arm.token, "GET", path);

describe("ARM faults", () => {
  it("throttles the next matching requests with 429, Retry-After and ARM's throttling body", async () => {
    arm.sim.arm.injectFault({
      status: 429,
      count: 2,
      pathContains: "/backendAddressPools/",
      retryAfterSeconds: 7,
    });
    const first = await get(pool());
    expect([first.status, errorCode(first)]).toEqual([429, "SubscriptionRequestsThrottled"]);
    expect(first.headers.get("retry-after")).toBe("7");
    expect((await get(vm())).status).toBe(200); // another path: untouched
    expect((await get(pool())).status).toBe(429);
    expect((await get(pool())).status).toBe(200); // two served, the fault is spent
    expect(arm.sim.arm.faults()).toEqual([]);
    expect(arm.sim.arm.requests().map((r) => [r.status, r.fault ?? false])).toEqual([
      [429, true],
      [200, false],
      [429, true],
      [200, false],
    ]);
  });

  it.each([
    [401, "InvalidAuthenticationToken"],
    [403, "AuthorizationFailed"],
    [404, "ResourceNotFound"],
    [409, "Conflict"],
    [500, "InternalServerError"],
    [503, "ServiceUnavailable"],
  ] as const)("answers an injected %i with ARM's %s body", async (status, code) => {
    arm.sim.arm.injectFault({ status, method: "GET" });
    const r = await get(vm());
    expect([r.status, errorCode(r)]).toEqual([status, code]);
    expect((r.body as { error: { message: string } }).error.message).not.toBe("");
    if (status === 401) expect(r.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect((await get(vm())).status).toBe(200);
  });

  it("refuses a fault it cannot serve, and clears them all", () => {
    expect(() => arm.sim.arm.injectFault({ status: 418 as 500 })).toThrow(/invalid request/);
    expect(() => arm.sim.arm.injectFault({ status: 500, retryAfterSeconds: 3 })).toThrow(/429/);
    arm.sim.arm.injectFault({ status: 500, count: 5 });
    expect(arm.sim.arm.clearFaults()).toBe(1);
  });
});

describe("alerts", () => {
  const alerts = (query: string) =>
    get(
      `/subscriptions/${arm.sim.state().topology.subscriptionId}/providers/Microsoft.AlertsManagement/alerts?api-version=2019-05-05-preview&${query}`,
    );
  const rule = () =>
    `${arm.sim.arm.resourceGroupId()}/providers/Microsoft.Insights/metricAlerts/high-error-rate`;
  type Listed = {
    value: Array<{ name: string; properties: { essentials: Record<string, string> } }>;
  };

  it("lists a fired alert of a rule, and moves it to Resolved", async () => {
    expect((await alerts(`alertRule=${encodeURIComponent(rule())}`)).body).toEqual({ value: [] });
    const fired = arm.sim.fireAlert("high-error-rate", { severity: "Sev1" });
    expect(arm.sim.fireAlert("high-error-rate").alertId).toBe(fired.alertId); // still the same alert

    const r = await alerts(`alertRule=${encodeURIComponent(rule())}&monitorCondition=Fired`);
    expect(r.status).toBe(200);
    const listed = (r.body as Listed).value;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      name: "high-error-rate",
      type: "Microsoft.AlertsManagement/alerts",
      id: `/subscriptions/${arm.sim.state().topology.subscriptionId}/providers/Microsoft.AlertsManagement/alerts/${fired.alertId}`,
      properties: {
        essentials: {
          alertRule: rule(),
          monitorCondition: "Fired",
          alertState: "New",
          severity: "Sev1",
          signalType: "Metric",
        },
      },
    });

    arm.sim.advance(300);
    arm.sim.resolveAlert("high-error-rate");
    expect(((await alerts("monitorCondition=Fired")).body as Listed).value).toEqual([]);
    const resolved = ((await alerts("monitorCondition=Resolved")).body as Listed).value;
    expect(resolved[0]?.properties.essentials.monitorConditionResolvedDateTime).toBe(
      new Date(arm.sim.now().simMs).toISOString(),
    );
    expect(() => arm.sim.resolveAlert("high-error-rate")).toThrow(/not firing/);
    expect(() => arm.sim.fireAlert("no-such-rule")).toThrow(/no alert rule/);
  });

  it("needs the alerts api-version and a role at subscription scope", async () => {
    const noVersion = await get(
      `/subscriptions/${arm.sim.state().topology.subscriptionId}/providers/Microsoft.AlertsManagement/alerts`,
    );
    expect(errorCode(noVersion)).toBe("MissingApiVersionParameter");
    arm.sim.arm.revoke({ principalId: arm.sim.identity.principalId });
    expect(errorCode(await alerts(""))).toBe("AuthorizationFailed");
  });
});
