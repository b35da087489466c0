import { describe, expect, it } from "vitest";
import { fetchFailureText } from "./fetchFailure";

/** Errors shaped as Node's fetch (undici) throws them: "fetch failed", the reason in `cause`. */
const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause });
const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("why a request got no answer", () => {
  it("names the cause in words and its code, never the bare 'fetch failed'", () => {
    const cases: [unknown, string][] = [
      [
        systemError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:7071"),
        "connection refused (ECONNREFUSED)",
      ],
      [systemError("ENOTFOUND", "getaddrinfo ENOTFOUND q.invalid"), "host not found (ENOTFOUND)"],
      [
        systemError("UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error"),
        "connection timed out (UND_ERR_CONNECT_TIMEOUT)",
      ],
    ];
    for (const [cause, text] of cases)
      expect(fetchFailureText(fetchFailed(cause), 10_000)).toBe(text);
  });

  it("takes the code from an AggregateError's errors (one per address tried)", () => {
    const both = new AggregateError([
      systemError("ECONNREFUSED", "connect ECONNREFUSED ::1:7071"),
      systemError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:7071"),
    ]);
    expect(fetchFailureText(fetchFailed(both), 10_000)).toBe("connection refused (ECONNREFUSED)");
  });

  it("keeps a TLS error's own message, with its code", () => {
    const tls = systemError("CERT_HAS_EXPIRED", "certificate has expired");
    expect(fetchFailureText(fetchFailed(tls), 10_000)).toBe(
      "certificate has expired (CERT_HAS_EXPIRED)",
    );
  });

  it("says how long it waited when the request timed out", () => {
    const timeout = new DOMException("The operation was aborted due to timeout", "TimeoutError");
    expect(fetchFailureText(timeout, 10_000)).toBe("no answer within 10 s");
  });

  it("explains fetch's blocked ports, which undici calls only 'bad port'", () => {
    expect(fetchFailureText(fetchFailed(new Error("bad port")), 10_000)).toMatch(
      /^fetch never connects to this port/,
    );
  });
});
