import {
  addSecrets,
  clearSecrets,
  REDACTED,
  redact,
  redactDeep,
  registerSecrets,
  rememberSecret,
  secretParts,
} from "@quiesce/protocol";
import { type RelayReport, redactReport } from "@quiesce/protocol/relay";
import { afterEach, describe, expect, it } from "vitest";

afterEach(() => clearSecrets());

describe("redact: secret shapes in text Quiesce did not write", () => {
  it.each([
    [
      "a bearer header",
      "Authorization: Bearer abc.def-ghi_123",
      "Authorization: Bearer [REDACTED]",
    ],
    [
      "a bearer with a newline left in it",
      "TypeError: Bearer tok3n-value\n is not a legal HTTP header value",
      "TypeError: Bearer [REDACTED]\n is not a legal HTTP header value",
    ],
    [
      "a JWT alone",
      "token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl expired",
      `token ${REDACTED} expired`,
    ],
    [
      "a storage key",
      "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zm9vYmFy==;EndpointSuffix=core.windows.net",
      "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=[REDACTED];EndpointSuffix=core.windows.net",
    ],
    [
      "a SAS in a connection string",
      "TableEndpoint=https://a.table.core.windows.net/;SharedAccessSignature=sv=2024&sig=abc%2B",
      "TableEndpoint=https://a.table.core.windows.net/;SharedAccessSignature=[REDACTED]",
    ],
    [
      "a SAS in a URL",
      "GET https://a.blob.core.windows.net/c?sv=2024-05-04&sig=abc%2Bdef failed",
      "GET https://a.blob.core.windows.net/c?sv=2024-05-04&sig=[REDACTED] failed",
    ],
    [
      "a Functions key",
      "POST https://f.azurewebsites.net/api/x?code=k3y== failed",
      "POST https://f.azurewebsites.net/api/x?code=[REDACTED] failed",
    ],
    [
      "a Slack webhook",
      "to https://hooks.slack.com/services/T0/B0/xyz failed",
      "to https://hooks.slack.com/services/[REDACTED] failed",
    ],
    [
      "an Office 365 connector",
      "https://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d",
      "https://contoso.webhook.office.com/webhookb2/[REDACTED]",
    ],
    [
      "a password in a URL",
      "connect http://user:pa55word@127.0.0.1:8080/x",
      "connect http://user:[REDACTED]@127.0.0.1:8080/x",
    ],
    ["a private key", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----", REDACTED],
  ])("replaces %s", (_what, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("leaves ordinary operator text alone", () => {
    for (const text of [
      "drain hook failed: exit code 1: connection refused",
      "401 Unauthorized: Unauthorized",
      "GET https://app.example/health answered 503, expected 200",
      "waiting for 2 of 3 affected VM(s) to drain: vm-1, vm-2",
    ])
      expect(redact(text)).toBe(text);
  });

  it("is idempotent", () => {
    const once = redact("Bearer x.y.z and ?sig=abc and AccountKey=k");
    expect(redact(once)).toBe(once);
  });
});

describe("redact: known secret values", () => {
  it("replaces a registered value, as is, percent-encoded and JSON-escaped", () => {
    registerSecrets("relay key", ['s3cr3t/value+with"quote']);
    expect(redact('key s3cr3t/value+with"quote')).toBe(`key ${REDACTED}`);
    expect(redact(`key ${encodeURIComponent('s3cr3t/value+with"quote')}`)).toBe(`key ${REDACTED}`);
    expect(redact(JSON.stringify({ k: 's3cr3t/value+with"quote' }))).toBe(`{"k":"${REDACTED}"}`);
  });

  it("takes a secret URL's long path segments and query values as secrets of their own", () => {
    const url =
      "https://prod.example/workflows/0123456789abcdef0123/invoke?api-version=1&sv=1.0&sig=0123456789abcdefXYZ";
    expect(secretParts(url)).toEqual(
      expect.arrayContaining(["0123456789abcdef0123", "0123456789abcdefXYZ"]),
    );
    expect(secretParts(url)).not.toContain("workflows");
    registerSecrets("teams", [url]);
    expect(redact("POST /workflows/0123456789abcdef0123/invoke: 404")).toBe(
      `POST /workflows/${REDACTED}/invoke: 404`,
    );
  });

  it("a source registering again replaces its own values only", () => {
    registerSecrets("token", ["first-token-value"]);
    registerSecrets("key", ["the-shared-key-value"]);
    registerSecrets("token", ["second-token-value", "first-token-value"]);
    expect(redact("first-token-value second-token-value the-shared-key-value")).toBe(
      `${REDACTED} ${REDACTED} ${REDACTED}`,
    );
    registerSecrets("token", ["third-token-value"]);
    expect(redact("first-token-value")).toBe("first-token-value");
  });

  it("ignores values too short to be secrets", () => {
    registerSecrets("short", ["abc", ""]);
    expect(redact("abc")).toBe("abc");
  });

  it("redacts every string of a JSON value, nested", () => {
    registerSecrets("k", ["a-known-secret"]);
    expect(redactDeep({ a: ["x a-known-secret"], b: { c: "Bearer t0k" }, n: 1 })).toEqual({
      a: [`x ${REDACTED}`],
      b: { c: `Bearer ${REDACTED}` },
      n: 1,
    });
  });
});

describe("redactReport", () => {
  it("redacts a report's free text and keeps each field within its limit", () => {
    registerSecrets("k", ["a-known-secret"]);
    const report = {
      hooks: [
        {
          eventId: "e",
          drain: {
            status: "failed",
            attempt: 1,
            startedAt: "t",
            detail: `${"x".repeat(1020)} Bearer abcdefgh`,
          },
        },
      ],
      approvals: [{ eventId: "e", outcome: "failed", at: "t", detail: "a-known-secret" }],
      imds: { failuresInARow: 1, since: "t", lastError: "?sig=abc" },
      imdsProblems: [{ kind: "field", detail: "a-known-secret" }],
    } as unknown as RelayReport;
    const out = redactReport(report);
    expect(out.hooks[0]?.drain?.detail).toHaveLength(1024);
    expect(out.hooks[0]?.drain?.detail).not.toContain("abcdefgh");
    expect(out.approvals[0]?.detail).toBe(REDACTED);
    expect(out.imds?.lastError).toBe(`?sig=${REDACTED}`);
    expect(out.imdsProblems?.[0]?.detail).toBe(REDACTED);
  });
});

describe("rememberSecret", () => {
  it("keeps a source's last two values: a rotated token and its predecessor", () => {
    rememberSecret("token a", "token-value-one");
    rememberSecret("token a", "token-value-two");
    rememberSecret("token a", "token-value-two");
    expect(redact("token-value-one token-value-two")).toBe(`${REDACTED} ${REDACTED}`);
    rememberSecret("token a", "token-value-three");
    expect(redact("token-value-one token-value-three")).toBe(`token-value-one ${REDACTED}`);
  });
});

describe("addSecrets", () => {
  it("keeps every component's settings secrets, however many start in one process", () => {
    addSecrets(["first-coordinator-key"]);
    addSecrets(["second-coordinator-key", undefined]);
    addSecrets(["first-coordinator-key"]);
    expect(redact("first-coordinator-key second-coordinator-key")).toBe(`${REDACTED} ${REDACTED}`);
  });
});
