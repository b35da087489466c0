import { jsonPath } from "@quiesce/protocol";
import { KNOWN_EVENT_TYPES } from "@quiesce/protocol/imds";
import { EVENT_SOURCES, PolicySet } from "@quiesce/protocol/policy";
import { describe, expect, it } from "vitest";

/** What an operator reads of a policy: each problem after its path (the settings put QUIESCE_POLICY first). */
const refusal = (policy: unknown): string | undefined => {
  const r = PolicySet.safeParse(policy);
  return r.success
    ? undefined
    : r.error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`).join("; ");
};
const rule = (extra: object) => ({ default: { autoApprove: [{ name: "r", ...extra }] } });

describe("autoApprove rules", () => {
  it("refuse an event type Azure does not send, naming the ones it does", () => {
    expect(refusal(rule({ eventTypes: ["Reboot", "Freez"] }))).toBe(
      'default.autoApprove[0].eventTypes[1]: "Freez" is not an event type: one of Freeze, Reboot, Redeploy, Preempt, Terminate, SpotRebalanceRecommendation (case as written)',
    );
    // Matched exactly as Azure writes them: a rule for "freeze" would never fire.
    expect(refusal(rule({ eventTypes: ["freeze"] }))).toMatch(/"freeze" is not an event type/);
  });

  it("refuse an event source other than Platform or User", () => {
    expect(refusal(rule({ eventSources: ["user"] }))).toBe(
      'default.autoApprove[0].eventSources[0]: "user" is not an event source: one of Platform, User (case as written)',
    );
  });

  it("take every event type and source Azure documents", () => {
    expect(refusal(rule({ eventTypes: [...KNOWN_EVENT_TYPES] }))).toBeUndefined();
    expect(refusal(rule({ eventSources: [...EVENT_SOURCES] }))).toBeUndefined();
  });
});

describe("policy URLs", () => {
  it("name the path of a gate's or an agentless hook's URL that is not one, quoting it", () => {
    expect(
      refusal({ clusters: { web: { gates: [{ kind: "http", name: "g", url: "htp:/x" }] } } }),
    ).toBe('clusters.web.gates[0].url: not a valid URL ("htp:/x")');
    expect(
      refusal({ default: { agentless: { enabled: true, recover: { url: "//drain/{vmName}" } } } }),
    ).toBe('default.agentless.recover.url: not a valid URL ("//drain/{vmName}")');
  });

  it("redact a token in the URL it quotes", () => {
    const message =
      refusal({
        default: {
          gates: [{ kind: "http", name: "g", url: "htps://h/?code=0123456789abcdefXYZ" }],
        },
      }) ?? "";
    expect(message).toMatch(/gates\[0\]\.url: not a valid URL/);
    expect(message).not.toContain("0123456789abcdefXYZ");
  });
});
