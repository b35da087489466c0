import { describe, expect, it } from "vitest";
import {
  acquire,
  ChangeSafetyPolicy,
  type ChangeSafetyPolicyInput,
  type ChangeSafetyState,
  checkWrite,
  initialChangeSafety,
} from "./changeSafety";

/**
 * The simulated Change Safety policy (changeSafety.ts): a token is good for the one operation it
 * was acquired for, until it expires; Deny refuses anything else, Audit records it; an acquire
 * answers `Failed` where the evaluation would refuse.
 */
const PATH =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/web";
const URI = `https://management.azure.com${PATH}?api-version=2024-05-01`;
const withPolicy = (p: ChangeSafetyPolicyInput): ChangeSafetyState => ({
  ...initialChangeSafety(),
  policy: ChangeSafetyPolicy.parse(p),
});
const tokenOf = (body: Record<string, unknown>) => body.token as string;

describe("the simulated Change Safety policy", () => {
  it("issues no token and lets every write through while off", () => {
    const s = initialChangeSafety();
    expect(acquire(s, { uri: URI, httpMethod: "PUT" }, 0).body).toEqual({ result: "Succeeded" });
    expect(
      checkWrite(s, { method: "PUT", path: PATH, apiVersion: "2024-05-01", token: undefined }, 0)
        .denied,
    ).toBeNull();
  });

  it("under Deny, lets a write through only with the token acquired for it, before it expires", () => {
    const s0 = withPolicy({ missingTokenAction: "Deny", tokenLifetimeSeconds: 60 });
    const { state: s, body } = acquire(s0, { uri: URI, httpMethod: "put" }, 0);
    const token = tokenOf(body);
    const write = (
      over: Partial<{ method: string; path: string; apiVersion: string }>,
      at = 1_000,
    ) =>
      checkWrite(s, { method: "PUT", path: PATH, apiVersion: "2024-05-01", token, ...over }, at)
        .denied?.status ?? 200;
    expect(write({})).toBe(200);
    expect(write({ method: "PATCH" })).toBe(403);
    expect(write({ apiVersion: "2024-07-01" })).toBe(403);
    expect(write({ path: `${PATH}-other` })).toBe(403);
    expect(write({}, 61_000)).toBe(403);
    expect(
      checkWrite(s, { method: "PUT", path: PATH, apiVersion: "2024-05-01", token: undefined }, 0)
        .denied?.body,
    ).toMatchObject({
      error: { code: "RequestDisallowedByPolicy" },
    });
  });

  it("under Audit, records a write without a token and lets it through", () => {
    const r = checkWrite(
      withPolicy({ missingTokenAction: "Audit" }),
      { method: "PUT", path: PATH, apiVersion: "2024-05-01", token: undefined },
      0,
    );
    expect(r.denied).toBeNull();
    expect(r.state.audited).toEqual([
      { method: "PUT", path: PATH, why: expect.stringContaining("required") },
    ]);
  });

  it("answers Failed for a change freeze, a missing change reference, or one naming no record", () => {
    const failed = (p: ChangeSafetyPolicyInput, changeReference?: string) =>
      acquire(
        withPolicy(p),
        { uri: URI, httpMethod: "PUT", ...(changeReference ? { changeReference } : {}) },
        0,
      ).body.result;
    expect(failed({ missingTokenAction: "Deny", refuse: true })).toBe("Failed");
    expect(failed({ missingTokenAction: "Deny", requireChangeReference: true })).toBe("Failed");
    expect(
      failed(
        { missingTokenAction: "Deny" },
        "/subscriptions/s/providers/Microsoft.ChangeSafety/changeRecords/none",
      ),
    ).toBe("Failed");
    expect(failed({ missingTokenAction: "Deny" })).toBe("Succeeded");
  });
});
