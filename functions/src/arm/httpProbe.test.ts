import { type RecordingCredential, recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPooledAgent, probeHttp } from "./index";

// One GET against an operator's health endpoint: pass, fail, time out, carry a token.

const stub = useHttpStub();
let dispatcher: ReturnType<typeof createPooledAgent>;
let credential: RecordingCredential;
beforeEach(() => {
  dispatcher = createPooledAgent();
  credential = recordingCredential();
});
afterEach(() => dispatcher.close());

const probe = (
  path: string,
  more?: { expectStatus?: number; timeoutMs?: number; bearerScope?: string },
) =>
  probeHttp(
    { url: `${stub.url}${path}`, expectStatus: 200, timeoutMs: 2_000, ...more },
    { credential, dispatcher },
  );

describe("the HTTP probe", () => {
  it("passes when the endpoint answers the expected status", async () => {
    stub.on("GET", "/health", { status: 200, body: "ok" });
    expect(await probe("/health")).toEqual({
      pass: true,
      detail: `GET ${stub.url}/health answered 200`,
    });
  });

  it("fails naming the status it got and the one it expected, without the query string", async () => {
    stub.on("GET", "/health", { status: 503, body: "x".repeat(100_000) });
    expect(await probe("/health?code=secret")).toEqual({
      pass: false,
      detail: `GET ${stub.url}/health answered 503, expected 200`,
    });
  });

  it("fails after timeoutMs when the endpoint does not answer", async () => {
    stub.on("GET", "/slow", { hang: true });
    expect(await probe("/slow", { timeoutMs: 200 })).toEqual({
      pass: false,
      detail: `GET ${stub.url}/slow timed out after 0.2 s`,
    });
  });

  it("fails naming the network error when the connection is dropped", async () => {
    stub.on("GET", "/gone", { drop: true });
    const r = await probe("/gone");
    expect(r.pass).toBe(false);
    expect(r.detail).toMatch(new RegExp(`^GET ${stub.url}/gone failed: `));
  });

  it("sends a bearer token for bearerScope, asked of the credential", async () => {
    stub.on("GET", "/private", (req) =>
      req.headers.authorization === "Bearer token-1" ? { status: 200 } : { status: 401 },
    );
    const r = await probe("/private", { bearerScope: "api://status-page/.default" });
    expect(r.pass).toBe(true);
    expect(credential.scopes).toEqual(["api://status-page/.default"]);
  });

  it("fails without sending when the credential gives no token", async () => {
    const r = await probeHttp(
      {
        url: `${stub.url}/private`,
        expectStatus: 200,
        timeoutMs: 1_000,
        bearerScope: "api://x/.default",
      },
      { credential: recordingCredential({ none: true }), dispatcher },
    );
    expect(r).toEqual({ pass: false, detail: "no token for api://x/.default" });
    expect(stub.requests).toEqual([]);
  });
});
