import { describe, expect, it } from "vitest";
import { loadCoordinatorSettings } from "./config";

/**
 * Every setting naming a URL the coordinator sends a credential to (its managed identity's
 * tokens to Table Storage, Graph and ARM; shared-key signatures or a SAS to Table Storage; a
 * bearer token to a gate or an agentless hook; the webhook URLs, which are themselves secrets) or
 * whose answer it trusts as a credential (the Entra signing keys) is https, or plain http only to
 * a loopback address.
 */

const base = {
  QUIESCE_AUTH_MODE: "sharedKey",
  QUIESCE_RELAY_KEY: "relay-key-0123456789",
  QUIESCE_OPERATOR_KEY: "operator-key-0123456789",
  QUIESCE_STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true",
};
const withTableEndpoint = {
  ...base,
  QUIESCE_STORAGE_CONNECTION_STRING: undefined,
  QUIESCE_TABLE_ENDPOINT: "https://acct.table.core.windows.net",
};
const REFUSED = (name: string) =>
  new RegExp(`${name}: must be https \\(plain http only to a loopback address`);

const SETTINGS: [name: string, settings: Record<string, string | undefined>][] = [
  ["QUIESCE_TABLE_ENDPOINT", withTableEndpoint],
  ["QUIESCE_GRAPH_URL", base],
  ["QUIESCE_ARM_ENDPOINT", base],
  ["QUIESCE_ENTRA_JWKS_URL", base],
  ["QUIESCE_TEAMS_WEBHOOK_URL", base],
  ["QUIESCE_SLACK_WEBHOOK_URL", base],
];
const REMOTE_HTTP = ["http://quiesce.example.com", "http://10.0.0.4:8080", "http://[fd00::1]"];
const LOOPBACK_HTTP = ["http://127.0.0.1:10002", "http://localhost:10002", "http://[::1]:10002"];

describe.each(SETTINGS)("%s", (name, settings) => {
  it.each(REMOTE_HTTP)("refuses plain http to a remote host (%s), naming the setting", (url) => {
    expect(() => loadCoordinatorSettings({ ...settings, [name]: url })).toThrow(REFUSED(name));
  });
  it.each(LOOPBACK_HTTP)("accepts plain http to loopback (%s)", (url) => {
    const s = loadCoordinatorSettings({ ...settings, [name]: url }) as Record<string, unknown>;
    expect(s[name]).toBe(url);
  });
  it("accepts https", () => {
    const s = loadCoordinatorSettings({ ...settings, [name]: "https://x.example.com" });
    expect((s as Record<string, unknown>)[name]).toBe("https://x.example.com");
  });
});

describe("QUIESCE_STORAGE_CONNECTION_STRING", () => {
  const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq==";
  const conn = (s: string) => ({ ...base, QUIESCE_STORAGE_CONNECTION_STRING: s });

  it.each([
    `DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=${key};EndpointSuffix=core.windows.net`,
    `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${key};TableEndpoint=http://10.0.0.5:10002/acct;`,
    `TableEndpoint=http://acct.table.core.windows.net/;SharedAccessSignature=sv=2024&sig=abc`,
  ])(
    "refuses a table endpoint over plain http to a remote host, without echoing the string",
    (s) => {
      let message = "";
      try {
        loadCoordinatorSettings(conn(s));
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(
        /QUIESCE_STORAGE_CONNECTION_STRING: its table endpoint must be https \(plain http only to a loopback address/,
      );
      expect(message).not.toContain(key);
      expect(message).not.toContain("sig=abc");
    },
  );

  it.each([
    "UseDevelopmentStorage=true",
    `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;`,
    `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${key};TableEndpoint=http://[::1]:10002/devstoreaccount1`,
    `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${key};EndpointSuffix=core.windows.net`,
    `AccountName=acct;AccountKey=${key}`,
  ])("accepts https and loopback endpoints (%#)", (s) => {
    expect(loadCoordinatorSettings(conn(s)).QUIESCE_STORAGE_CONNECTION_STRING).toBe(s);
  });
});

describe("policy URLs the coordinator calls with a bearer token", () => {
  const policy = (p: object) => ({
    ...base,
    QUIESCE_CONTROL_PLANE: "true",
    QUIESCE_POLICY: JSON.stringify({ default: p }),
  });
  const hook = (url: string) => ({ url, bearerScope: "api://x/.default" });

  it("refuses an agentless hook or HTTP gate over plain http to a remote host", () => {
    expect(() =>
      loadCoordinatorSettings(
        policy({ agentless: { enabled: true, drain: hook("http://10.0.0.4/drain/{vmName}") } }),
      ),
    ).toThrow(/QUIESCE_POLICY: default\.agentless\.drain\.url: must be https/);
    expect(() =>
      loadCoordinatorSettings(
        policy({ gates: [{ kind: "http", name: "h", ...hook("http://gate.example.com/") }] }),
      ),
    ).toThrow(/QUIESCE_POLICY: default\.gates\[0\]\.url: must be https/);
  });

  it("accepts them over plain http to loopback", () => {
    const s = loadCoordinatorSettings(
      policy({
        agentless: { enabled: true, recover: hook("http://[::1]:9000/recover/{vmName}") },
        gates: [{ kind: "http", name: "h", ...hook("http://localhost:9000/health") }],
      }),
    );
    expect(s.QUIESCE_POLICY.default.gates).toHaveLength(1);
  });
});
