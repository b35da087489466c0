import { describe, expect, it } from "vitest";
import { loadCoordinatorSettings } from "./config";
import { optionsFrom } from "./options";

/** QUIESCE_CHANGE_SAFETY as the settings parse it (docs/control-plane.md, "Change Safety"). */
const base = {
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "relay-key-0123456789",
  QUIESCE_OPERATOR_KEY: "operator-key-0123456789",
  QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
};
const SUB = "00000000-0000-4000-8000-000000000000";

function refusal(settings: Record<string, string>): string {
  try {
    loadCoordinatorSettings(settings);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

describe("QUIESCE_CHANGE_SAFETY", () => {
  it("is off by default: no policy token, no change records", () => {
    expect(optionsFrom(loadCoordinatorSettings(base)).changeSafety).toEqual({
      policyToken: false,
      changeRecords: null,
    });
  });

  it("turns on policy tokens and change records at a resource group, with the RP's defaults", () => {
    const s = loadCoordinatorSettings({
      ...base,
      QUIESCE_CONTROL_PLANE: "true",
      QUIESCE_CHANGE_SAFETY: JSON.stringify({
        policyToken: true,
        changeRecords: { scope: `/subscriptions/${SUB}/resourceGroups/ops-changes` },
      }),
    });
    expect(optionsFrom(s).changeSafety).toEqual({
      policyToken: true,
      changeRecords: {
        subscriptionId: SUB,
        resourceGroup: "ops-changes",
        changeType: "ManualTouch",
        rolloutType: "Normal",
      },
    });
  });

  it("refuses, naming the setting, what it cannot do: without the control plane, a bad scope, an unknown field", () => {
    const on = JSON.stringify({ policyToken: true });
    expect(refusal({ ...base, QUIESCE_CHANGE_SAFETY: on })).toMatch(
      /QUIESCE_CHANGE_SAFETY: .*set QUIESCE_CONTROL_PLANE=true/,
    );
    const cp = { ...base, QUIESCE_CONTROL_PLANE: "true" };
    expect(
      refusal({
        ...cp,
        QUIESCE_CHANGE_SAFETY: JSON.stringify({ changeRecords: { scope: "/rg" } }),
      }),
    ).toMatch(/QUIESCE_CHANGE_SAFETY: changeRecords\.scope: \/subscriptions\/<subscription id>/);
    expect(
      refusal({ ...cp, QUIESCE_CHANGE_SAFETY: JSON.stringify({ policytoken: true }) }),
    ).toMatch(/QUIESCE_CHANGE_SAFETY/);
    expect(refusal({ ...cp, QUIESCE_CHANGE_SAFETY: "yes" })).toMatch(
      /QUIESCE_CHANGE_SAFETY: must be JSON/,
    );
  });
});
