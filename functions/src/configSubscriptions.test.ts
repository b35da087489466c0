import { describe, expect, it } from "vitest";
import { loadCoordinatorSettings } from "./config";
import { optionsFrom } from "./options";

/**
 * QUIESCE_SUBSCRIPTIONS: the subscriptions one deployment serves (docs/control-plane.md, "Many
 * subscriptions"). Each entry checked, the refusal naming the entry; what the backstop queries and
 * what clusters claim must be within it; the control plane must be on.
 */
const base = {
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "relay-key-0123456789",
  QUIESCE_OPERATOR_KEY: "operator-key-0123456789",
  QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
  QUIESCE_CONTROL_PLANE: "true",
};
const A = "00000000-0000-0000-0000-0000000000AA";
const B = "00000000-0000-0000-0000-0000000000bb";

function refusal(settings: Record<string, string>): string {
  try {
    loadCoordinatorSettings({ ...base, ...settings });
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

describe("the subscriptions a deployment serves", () => {
  it("are read lower-cased, blanks and spaces ignored, into the backstop's options", () => {
    const s = loadCoordinatorSettings({ ...base, QUIESCE_SUBSCRIPTIONS: ` ${A} ,, ${B} ` });
    expect(optionsFrom(s).controlPlaneEvents.subscriptions).toEqual([A.toLowerCase(), B]);
    expect(optionsFrom(loadCoordinatorSettings(base)).controlPlaneEvents.subscriptions).toEqual([]);
  });

  it.each([
    [`${A},sub-1`, 'entry 2 ("sub-1") is not a subscription id: expected a GUID'],
    [`${"-".repeat(36)}`, "is not a subscription id"],
    [`${A},${A.toLowerCase()}`, `entry 2 ("${A.toLowerCase()}") is listed twice`],
  ])("refuses %s, naming the entry", (value, message) => {
    const m = refusal({ QUIESCE_SUBSCRIPTIONS: value });
    expect(m).toContain("QUIESCE_SUBSCRIPTIONS");
    expect(m).toContain(message);
  });

  it("refuses a list without the control plane", () => {
    expect(refusal({ QUIESCE_SUBSCRIPTIONS: A, QUIESCE_CONTROL_PLANE: "false" })).toContain(
      "set QUIESCE_CONTROL_PLANE=true too",
    );
  });

  it("refuses a backstop subscription or a cluster's azureResources outside the list", () => {
    expect(
      refusal({ QUIESCE_SUBSCRIPTIONS: A, QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS: `${A},${B}` }),
    ).toContain(
      `QUIESCE_RESOURCE_GRAPH_SUBSCRIPTIONS names ${B}, which QUIESCE_SUBSCRIPTIONS does not list`,
    );
    const set = `/subscriptions/${B}/resourceGroups/rg/providers/Microsoft.Compute/availabilitySets/app`;
    const policy = JSON.stringify({ clusters: { app: { azureResources: [set] } } });
    expect(refusal({ QUIESCE_SUBSCRIPTIONS: A, QUIESCE_POLICY: policy })).toContain(
      `cluster app's policy names ${set} in azureResources, in subscription ${B}, which QUIESCE_SUBSCRIPTIONS does not list`,
    );
    expect(refusal({ QUIESCE_SUBSCRIPTIONS: `${A},${B}`, QUIESCE_POLICY: policy })).toBe("");
  });
});
