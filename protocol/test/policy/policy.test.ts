import { DEFAULT_POLICY, PolicySet, policyFor } from "@quiesce/protocol/policy";
import { describe, expect, it } from "vitest";

describe("QUIESCE_POLICY resolution", () => {
  it("applies the operator's default to a cluster that overrides other fields", () => {
    const policies = PolicySet.parse({
      default: { maxEventsInFlight: 3, idleReportSeconds: 60 },
      clusters: { web: { unmanagedVms: "ignore" } },
    });
    const web = policyFor(policies, "web");
    expect(web.maxEventsInFlight).toBe(3);
    expect(web.idleReportSeconds).toBe(60);
    expect(web.unmanagedVms).toBe("ignore");
    // Untouched fields keep the built-in defaults.
    expect(web.livenessTimeoutSeconds).toBe(DEFAULT_POLICY.livenessTimeoutSeconds);
  });

  it("gives clusters without an override the operator's default, not the built-in one", () => {
    const policies = PolicySet.parse({ default: { activeReportSeconds: 2 } });
    expect(policyFor(policies, "any").activeReportSeconds).toBe(2);
    expect(policyFor(policies, "any").onDrainFailure).toBe("block");
  });

  it("lets a cluster override a field the default also sets", () => {
    const policies = PolicySet.parse({
      default: { maxEventsInFlight: 3 },
      clusters: { db: { maxEventsInFlight: 1 } },
    });
    expect(policyFor(policies, "db").maxEventsInFlight).toBe(1);
    expect(policyFor(policies, "web").maxEventsInFlight).toBe(3);
  });

  it("resolves every cluster once, so a report costs no parse", () => {
    const policies = PolicySet.parse({ clusters: { web: { maxEventsInFlight: 2 } } });
    expect(policyFor(policies, "web")).toBe(policyFor(policies, "web"));
  });

  it("refuses an unknown field, a bad value or a bad cluster name, naming it", () => {
    const bad = [
      { default: { maxEventsInFligth: 2 } },
      { clusters: { web: { maxEventsInFlight: 0 } } },
      { clusters: { "no/slash": {} } },
    ];
    for (const input of bad) expect(PolicySet.safeParse(input).success).toBe(false);
    const r = PolicySet.safeParse({ clusters: { web: { onDrainFailure: "maybe" } } });
    expect(r.success).toBe(false);
    if (!r.success) expect(JSON.stringify(r.error.issues[0]?.path)).toContain("onDrainFailure");
  });
});
