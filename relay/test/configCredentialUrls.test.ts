import { describe, expect, it } from "vitest";
import { parseRelaySettings } from "../src/config";

/**
 * Every setting naming a URL the relay sends a credential to (its shared key or its VM's Entra
 * token to the coordinator, its service account's token to the Kubernetes API) is https, or plain
 * http only to a loopback address: a credential never crosses a network in clear text.
 */

const base = {
  QUIESCE_COORDINATOR_URL: "http://127.0.0.1:7071",
  QUIESCE_CLUSTER: "web",
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "0123456789abcdef",
};
const entra = {
  ...base,
  QUIESCE_AUTH_MODE: "managedIdentity",
  QUIESCE_RELAY_KEY: undefined,
  QUIESCE_ENTRA_AUDIENCE: "api://quiesce",
};

const CREDENTIAL_URLS = ["QUIESCE_COORDINATOR_URL", "QUIESCE_KUBERNETES_API_URL"] as const;
const REMOTE_HTTP = [
  "http://quiesce.example.com",
  "http://10.0.0.4:7071",
  "http://[fd00::1]:7071",
  "http://127.0.0.1.example.com",
  "http://localhost.example.com:7071",
];
const LOOPBACK_HTTP = [
  "http://127.0.0.1:7071",
  "http://localhost:7071",
  "http://LOCALHOST:7071",
  "http://[::1]:7071",
];

describe.each(CREDENTIAL_URLS)("%s", (name) => {
  it.each(REMOTE_HTTP)("refuses plain http to a remote host (%s), naming the setting", (url) => {
    for (const settings of [base, entra])
      expect(() => parseRelaySettings({ ...settings, [name]: url })).toThrow(
        new RegExp(`${name}: must be https \\(plain http only to a loopback address`),
      );
  });

  it.each(LOOPBACK_HTTP)("accepts plain http to loopback (%s)", (url) => {
    expect(parseRelaySettings({ ...base, [name]: url })[name]).toBe(url);
  });

  it("accepts https anywhere", () => {
    expect(parseRelaySettings({ ...entra, [name]: "https://quiesce.example.com" })[name]).toBe(
      "https://quiesce.example.com",
    );
  });
});
