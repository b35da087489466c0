import { DEFAULT_POLICY, type Policy } from "@quiesce/protocol/policy";
import { describe, expect, it } from "vitest";
import { nextSupport, reliesOnControlPlane } from "./regionSupport";

const policy = (mode: "fallback" | "off", agentless: boolean): Policy => ({
  ...DEFAULT_POLICY,
  controlPlaneApproval: { ...DEFAULT_POLICY.controlPlaneApproval, mode },
  agentless: { ...DEFAULT_POLICY.agentless, enabled: agentless },
});

describe("a group relying on approval through ARM", () => {
  it("is an agentless cluster's, or a relay group with no live relay, under fallback only", () => {
    expect(
      reliesOnControlPlane(policy("fallback", true), { agentless: true, liveMembers: 0 }),
    ).toBe(true);
    expect(
      reliesOnControlPlane(policy("fallback", false), { agentless: false, liveMembers: 0 }),
    ).toBe(true);
    expect(
      reliesOnControlPlane(policy("fallback", false), { agentless: false, liveMembers: 1 }),
    ).toBe(false);
    expect(reliesOnControlPlane(policy("off", true), { agentless: true, liveMembers: 0 })).toBe(
      false,
    );
  });
});

describe("a region's record after an answer", () => {
  const T = 1_000;
  it("keeps since while the availability holds, moves it when it changes, and ignores answers that say nothing", () => {
    const first = nextSupport(
      undefined,
      "WestEurope",
      { ok: false, status: 405, code: "NotImplemented" },
      "probe",
      T,
    );
    expect(first).toEqual({
      region: "westeurope",
      availability: "notAvailable",
      since: T,
      checkedAt: T,
      how: "probe",
      detail: "405 NotImplemented",
    });
    const again = nextSupport(
      first ?? undefined,
      "westeurope",
      { ok: false, status: 405, code: "NotImplemented" },
      "probe",
      T + 5,
    );
    expect(again).toMatchObject({ since: T, checkedAt: T + 5 });
    const now = nextSupport(again ?? undefined, "westeurope", { ok: true }, "acknowledge", T + 9);
    expect(now).toMatchObject({
      availability: "available",
      since: T + 9,
      how: "acknowledge",
      detail: "approved",
    });
    expect(
      nextSupport(
        now ?? undefined,
        "westeurope",
        { ok: false, status: 0, code: "Timeout" },
        "probe",
        T + 10,
      ),
    ).toBeNull();
  });
});
