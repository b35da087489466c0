import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  mergeSettingSources,
  parseConfigFile,
  parseRelaySettings,
  RELAY_SETTING_NAMES,
  redactSettings,
} from "../src/config";
import { apiServerUrl } from "../src/kubernetes/hook";
import { relayConfigFrom } from "../src/options";
import { RELAY_VERSION } from "../src/version";

const base = {
  QUIESCE_COORDINATOR_URL: "http://127.0.0.1:7071",
  QUIESCE_CLUSTER: "web",
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "0123456789abcdef",
};

describe("relay settings", () => {
  it("fills the documented defaults", () => {
    const s = parseRelaySettings(base);
    expect(s.QUIESCE_IMDS_URL).toBe("http://169.254.169.254");
    expect(s.QUIESCE_IMDS_API_VERSION).toBe("2020-07-01");
    expect(s.QUIESCE_POLL_INTERVAL_MS).toBe(1000);
    expect(s.QUIESCE_DRY_RUN).toBe(false);
  });

  it("leaves the Kubernetes drain off, and finds the API server as a pod does", () => {
    const s = parseRelaySettings(base);
    expect(s.QUIESCE_KUBERNETES_DRAIN).toBe(false);
    expect(s.QUIESCE_KUBERNETES_TOKEN_FILE).toBe(
      "/var/run/secrets/kubernetes.io/serviceaccount/token",
    );
    expect(s.QUIESCE_KUBERNETES_CA_FILE).toBe(
      "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
    );
    expect(
      apiServerUrl(relayConfigFrom(s).kubernetes, {
        KUBERNETES_SERVICE_HOST: "10.0.0.1",
        KUBERNETES_SERVICE_PORT: "443",
      }),
    ).toBe("https://10.0.0.1:443");
    expect(
      apiServerUrl(relayConfigFrom(s).kubernetes, {
        KUBERNETES_SERVICE_HOST: "fd00::1",
        KUBERNETES_SERVICE_PORT: "443",
      }),
    ).toBe("https://[fd00::1]:443");
    expect(() => apiServerUrl(relayConfigFrom(s).kubernetes, {})).toThrow(
      /KUBERNETES_SERVICE_HOST/,
    );
    // The bearer token never crosses a network in clear text.
    expect(() =>
      parseRelaySettings({ ...base, QUIESCE_KUBERNETES_API_URL: "http://10.0.0.1:8080" }),
    ).toThrow(/QUIESCE_KUBERNETES_API_URL/);
    expect(
      parseRelaySettings({
        ...base,
        QUIESCE_KUBERNETES_API_URL: "http://127.0.0.1:8080",
        QUIESCE_KUBERNETES_DRAIN: "true",
      }).QUIESCE_KUBERNETES_DRAIN,
    ).toBe(true);
  });

  it("names every bad setting in the error", () => {
    expect(() =>
      parseRelaySettings({ ...base, QUIESCE_CLUSTER: "no spaces", QUIESCE_POLL_INTERVAL_MS: "50" }),
    ).toThrow(/QUIESCE_CLUSTER: .*QUIESCE_POLL_INTERVAL_MS: /);
  });

  it("requires the key in sharedKey mode and the audience in managedIdentity mode", () => {
    expect(() => parseRelaySettings({ ...base, QUIESCE_RELAY_KEY: undefined })).toThrow(
      /QUIESCE_RELAY_KEY: required when QUIESCE_AUTH_MODE=sharedKey/,
    );
    expect(() => parseRelaySettings({ ...base, QUIESCE_AUTH_MODE: "managedIdentity" })).toThrow(
      /QUIESCE_ENTRA_AUDIENCE: required/,
    );
  });

  it("refuses a command and a URL for the same hook", () => {
    expect(() =>
      parseRelaySettings({
        ...base,
        QUIESCE_DRAIN_COMMAND: "true",
        QUIESCE_DRAIN_URL: "http://127.0.0.1:9/drain",
      }),
    ).toThrow(/QUIESCE_DRAIN_URL: set QUIESCE_DRAIN_COMMAND or QUIESCE_DRAIN_URL, not both/);
  });

  it("lets the environment win over the config file, and reads JSON booleans and numbers", () => {
    const file = parseConfigFile(
      JSON.stringify({
        ...base,
        QUIESCE_CLUSTER: "from-file",
        QUIESCE_DRY_RUN: true,
        QUIESCE_POLL_INTERVAL_MS: 500,
      }),
      "relay.json",
    );
    const s = parseRelaySettings(
      mergeSettingSources({ QUIESCE_CLUSTER: "from-env", PATH: "/bin" }, file),
    );
    expect(s.QUIESCE_CLUSTER).toBe("from-env");
    expect(s.QUIESCE_DRY_RUN).toBe(true);
    expect(s.QUIESCE_POLL_INTERVAL_MS).toBe(500);
  });

  it("refuses unknown keys in the config file so a typo is not silently ignored", () => {
    expect(() => parseConfigFile('{"QUIESCE_CLUSTR":"x"}', "relay.json")).toThrow(
      /^config file relay\.json: QUIESCE_CLUSTR: not a setting; did you mean QUIESCE_CLUSTER\?$/,
    );
    expect(() => parseConfigFile('{"CLUSTER":"x","OTHER":1}', "relay.json")).toThrow(
      /^config file relay\.json: unknown setting\(s\) CLUSTER, OTHER$/,
    );
    expect(() => parseConfigFile("{", "relay.json")).toThrow(/^config file relay\.json: not JSON/);
  });

  it("never shows the relay key when settings are printed", () => {
    expect(JSON.stringify(redactSettings(parseRelaySettings(base)))).not.toContain(
      base.QUIESCE_RELAY_KEY,
    );
  });

  it("exports every setting name with the QUIESCE_ prefix", () => {
    expect(RELAY_SETTING_NAMES).toContain("QUIESCE_COORDINATOR_URL");
    expect(RELAY_SETTING_NAMES.every((n) => n.startsWith("QUIESCE_"))).toBe(true);
  });

  it("reports the version written in relay/package.json", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(RELAY_VERSION).toBe(pkg.version);
  });
});
