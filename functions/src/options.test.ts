import { describe, expect, it } from "vitest";
import { loadCoordinatorSettings } from "./config";
import { optionsFrom, policiesFrom, settingName } from "./options";

const base = {
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "relay-key-0123456789",
  QUIESCE_OPERATOR_KEY: "operator-key-0123456789",
  QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
};
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe("the coordinator's options", () => {
  it("carry every duration in milliseconds", () => {
    const o = optionsFrom(
      loadCoordinatorSettings({
        ...base,
        QUIESCE_STORAGE_SETTLE_SECONDS: "6",
        QUIESCE_EVENT_RETENTION_DAYS: "3",
        QUIESCE_HISTORY_RETENTION_DAYS: "30",
        QUIESCE_NOTIFY_DEADLINE_MINUTES: "5",
        QUIESCE_ATTESTATION_PERIOD_HOURS: "2",
        QUIESCE_ATTESTATION_MAX_AGE_SECONDS: "120",
        QUIESCE_RESOURCE_GRAPH_INTERVAL_SECONDS: "60",
      }),
    );
    expect(o).toMatchObject({
      storageSettleMs: 6_000,
      eventRetentionMs: 3 * DAY_MS,
      historyRetentionMs: 30 * DAY_MS,
      notify: { deadlineMs: 300_000 },
      attestation: { periodMs: 2 * HOUR_MS },
      attestor: { maxAgeMs: 120_000 },
      controlPlaneEvents: { resourceGraphIntervalMs: 60_000 },
    });
  });

  it("say null where a setting means 'none': no unclaimed cluster, no ARM, no Event Grid key", () => {
    const o = optionsFrom(loadCoordinatorSettings({ ...base, QUIESCE_UNCLAIMED_CLUSTER: "off" }));
    expect(o.unclaimedCluster).toBeNull();
    expect(o.arm).toBeNull();
    expect(o.controlPlaneEvents.eventGridKey).toBeNull();
    expect(optionsFrom(loadCoordinatorSettings(base)).unclaimedCluster).toBe("unclaimed");
  });

  it("make attestation unavailable without the control plane, whatever its default mode", () => {
    const off = optionsFrom(loadCoordinatorSettings(base));
    expect(off.attestation).toMatchObject({ available: false, defaultMode: "prefer" });
    const on = optionsFrom(
      loadCoordinatorSettings({
        ...base,
        QUIESCE_CONTROL_PLANE: "true",
        QUIESCE_ATTESTATION: "off",
      }),
    );
    expect(on.attestation).toMatchObject({ available: true, defaultMode: "off" });
    expect(on.arm).toEqual({ endpoint: "https://management.azure.com" });
  });

  it("split comma lists once: Entra audiences and issuers, AIA hosts in lower case", () => {
    const o = optionsFrom(
      loadCoordinatorSettings({
        QUIESCE_TABLE_ENDPOINT: "https://acct.table.core.windows.net",
        QUIESCE_ENTRA_TENANT_ID: "11111111-2222-3333-4444-555555555555",
        QUIESCE_ENTRA_AUDIENCE: " api://app , client-id ,",
        QUIESCE_ATTESTATION_AIA_HOSTS: "WWW.Microsoft.com, caissuers.microsoft.com",
      }),
    );
    expect(o.auth).toMatchObject({ mode: "entra", audiences: ["api://app", "client-id"] });
    expect(o.auth.mode === "entra" && o.auth.issuers).toEqual([]);
    expect(o.attestor.aiaHosts).toEqual(["www.microsoft.com", "caissuers.microsoft.com"]);
    expect(o.attestor.sanDomains).toBeNull();
  });
});

describe("the policies", () => {
  it("give a cluster its own policy and any other cluster the default", () => {
    const p = policiesFrom(
      loadCoordinatorSettings({
        ...base,
        QUIESCE_POLICY: JSON.stringify({ clusters: { web: { maxEventsInFlight: 3 } } }),
      }),
    );
    expect(p.for("web").maxEventsInFlight).toBe(3);
    expect(p.for("db")).toBe(p.all.default);
  });
});

it("names a setting for an operator's message as the settings spell it", () => {
  expect(settingName("CONTROL_PLANE")).toBe("QUIESCE_CONTROL_PLANE");
});
