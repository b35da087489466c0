import { describe, expect, it } from "vitest";
import { ConfigError, loadCoordinatorSettings } from "./config";

/** The control plane's switch as the settings parse it (docs/control-plane.md). */
const base = {
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "relay-key-0123456789",
  QUIESCE_OPERATOR_KEY: "operator-key-0123456789",
  QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
};
const policy = (p: object) => ({ QUIESCE_POLICY: JSON.stringify({ default: p }) });

describe("QUIESCE_CONTROL_PLANE", () => {
  it("is off by default, and then no policy may approve through ARM", () => {
    const s = loadCoordinatorSettings(base);
    expect(s.QUIESCE_CONTROL_PLANE).toBe(false);
    expect(s.QUIESCE_POLICY.default.controlPlaneApproval.mode).toBe("off");
  });

  it("keeps the policy's approval fallback when on", () => {
    const s = loadCoordinatorSettings({ ...base, QUIESCE_CONTROL_PLANE: "true" });
    expect(s.QUIESCE_POLICY.default.controlPlaneApproval.mode).toBe("fallback");
    expect(s.QUIESCE_ARM_ENDPOINT).toBe("https://management.azure.com");
  });

  it("refuses, naming the setting, a policy with load-balancer drain or an alert-rule gate while off", () => {
    const lb = () =>
      loadCoordinatorSettings({ ...base, ...policy({ loadBalancerDrain: { enabled: true } }) });
    expect(lb).toThrow(ConfigError);
    expect(lb).toThrow(
      /the default policy uses loadBalancerDrain, which act through Azure Resource Manager: set QUIESCE_CONTROL_PLANE=true/,
    );
    const gate = {
      gates: [
        {
          kind: "alertRule",
          name: "errors",
          alertRuleId:
            "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Insights/metricAlerts/x",
        },
      ],
    };
    expect(() => loadCoordinatorSettings({ ...base, ...policy(gate) })).toThrow(/uses gate errors/);
    expect(
      loadCoordinatorSettings({ ...base, QUIESCE_CONTROL_PLANE: "1", ...policy(gate) })
        .QUIESCE_POLICY.default.gates,
    ).toHaveLength(1);
  });

  it("refuses, naming each, a patch-run cancel and alert processing rules while off", () => {
    const config =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Maintenance/maintenanceConfigurations/patch";
    const rule =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.AlertsManagement/actionRules/quiet";
    const both = {
      guestPatching: { maintenanceConfigurations: [config], whileEventActive: "cancel" },
      maintenanceSignal: { alertProcessingRules: [rule] },
    };
    expect(() => loadCoordinatorSettings({ ...base, ...policy(both) })).toThrow(
      /uses guestPatching.whileEventActive cancel, maintenanceSignal.alertProcessingRules, which act through Azure Resource Manager/,
    );
    // Holding approvals during a run needs only the Event Grid deliveries, not ARM.
    const hold = {
      guestPatching: { maintenanceConfigurations: [config], holdApprovalsDuringPatching: true },
    };
    expect(loadCoordinatorSettings({ ...base, ...policy(hold) }).QUIESCE_CONTROL_PLANE).toBe(false);
    expect(
      loadCoordinatorSettings({ ...base, QUIESCE_CONTROL_PLANE: "1", ...policy(both) })
        .QUIESCE_POLICY.default.maintenanceSignal.alertProcessingRules,
    ).toEqual([rule]);
  });

  it("refuses an HTTP gate to a plain-http address other than loopback", () => {
    const gate = { gates: [{ kind: "http", name: "h", url: "http://10.0.0.4/health" }] };
    expect(() => loadCoordinatorSettings({ ...base, ...policy(gate) })).toThrow(/must be https/);
  });
});

describe("QUIESCE_SHARED_RELAY_IDENTITIES", () => {
  const id =
    "/subscriptions/s/resourceGroups/MC_rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/aks-agentpool";
  const vmss =
    "/subscriptions/s/resourceGroups/MC_rg/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-1-vmss";
  it("maps each identity, in lower case, to its scale sets", () => {
    const s = loadCoordinatorSettings({
      ...base,
      QUIESCE_SHARED_RELAY_IDENTITIES: JSON.stringify({ [id]: [vmss] }),
    });
    expect(s.QUIESCE_SHARED_RELAY_IDENTITIES.get(id.toLowerCase())).toEqual([vmss]);
    expect(loadCoordinatorSettings(base).QUIESCE_SHARED_RELAY_IDENTITIES.size).toBe(0);
  });
  it("refuses what is not an identity mapped to scale sets, naming it", () => {
    const bad = JSON.stringify({
      [id]: ["/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm"],
    });
    expect(() =>
      loadCoordinatorSettings({ ...base, QUIESCE_SHARED_RELAY_IDENTITIES: bad }),
    ).toThrow(/a scale set's resource id/);
  });
});
