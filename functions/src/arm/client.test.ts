import { type RecordingCredential, recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ArmClient, type ArmRequestEvent, createArmClient, MAX_ARM_BODY_BYTES } from "./index";

// Token, headers, errors surfaced at once and answers that do not parse, against a real socket.
// Retries and waits: client.retry.test.ts.

const VM =
  "/subscriptions/sub-1/resourceGroups/rg-web/providers/Microsoft.Compute/virtualMachines/web-0";
const Named = z.object({ name: z.string() });
const get = (arm: ArmClient, path = VM) =>
  arm.request({ method: "GET", path, apiVersion: "2024-07-01", schema: Named, operation: "getVm" });

const stub = useHttpStub();
let credential: RecordingCredential;
let arm: ArmClient;
let events: ArmRequestEvent[];
beforeEach(() => {
  credential = recordingCredential();
  events = [];
  arm = createArmClient({
    endpoint: `${stub.url}/`,
    credential,
    sleep: async () => {},
    onRequest: (e) => events.push(e),
  });
});
afterEach(() => arm.close());

describe("the ARM client's requests", () => {
  it("asks for a token scoped to `<endpoint>/.default` and sends it as a Bearer with Accept, the api-version and a client request id", async () => {
    stub.on("GET", VM, { status: 200, body: { name: "web-0" }, headers: { etag: '"e1"' } });
    const r = await get(arm);
    expect(r).toEqual({
      ok: true,
      value: { status: 200, body: { name: "web-0" }, etag: '"e1"', attempts: 1 },
    });
    expect(credential.scopes).toEqual([`${stub.url}/.default`]);
    const [sent] = stub.requests;
    expect(sent?.headers.authorization).toBe("Bearer token-1");
    expect(sent?.headers.accept).toBe("application/json");
    expect(sent?.query).toEqual({ "api-version": "2024-07-01" });
    expect(sent?.headers["x-ms-client-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(events).toEqual([
      { operation: "getVm", status: 200, attempts: 1, durationMs: expect.any(Number) },
    ]);
  });

  it("reuses the token while it is valid and names each call with its own client request id", async () => {
    stub.on("GET", VM, { status: 200, body: { name: "web-0" } });
    await get(arm);
    await get(arm);
    expect(credential.issued).toEqual(["token-1"]);
    const ids = stub.requests.map((r) => r.headers["x-ms-client-request-id"]);
    expect(new Set(ids).size).toBe(2);
  });

  it("sends a JSON body with its content type, and If-Match when asked", async () => {
    stub.on("PUT", VM, { status: 200, body: { name: "web-0" } });
    await arm.request({
      method: "PUT",
      path: VM,
      apiVersion: "2024-07-01",
      body: { tags: { a: "b" } },
      ifMatch: 'W/"etag-1"',
      schema: Named,
      operation: "put",
    });
    const [sent] = stub.requests;
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.headers["if-match"]).toBe('W/"etag-1"');
    expect(JSON.parse(sent?.body ?? "")).toEqual({ tags: { a: "b" } });
  });

  it("refuses a path that would leave the endpoint, so the token never goes to another host", async () => {
    const r = await get(arm, "//example.com/subscriptions/x");
    expect(r).toMatchObject({ ok: false, error: { code: "InvalidRequest", attempts: 0 } });
    expect(stub.requests).toEqual([]);
  });

  it("fails with CredentialUnavailable and sends nothing when the credential gives no token", async () => {
    const none = createArmClient({
      endpoint: stub.url,
      credential: recordingCredential({ none: true }),
    });
    const r = await get(none);
    await none.close();
    expect(r).toMatchObject({
      ok: false,
      error: { status: 0, code: "CredentialUnavailable", attempts: 0 },
    });
    expect(stub.requests).toEqual([]);
  });
});

describe("401: one fresh token, then the error", () => {
  const expired = {
    status: 401,
    body: {
      error: {
        code: "ExpiredAuthenticationToken",
        message: "The access token expiry UTC time is earlier than current UTC time.",
      },
    },
  };

  it("asks the credential again after a 401 and succeeds with the rotated token", async () => {
    stub.on("GET", VM, expired, { status: 200, body: { name: "web-0" } });
    const r = await get(arm);
    expect(r).toMatchObject({ ok: true, value: { attempts: 2 } });
    expect(stub.requests.map((q) => q.headers.authorization)).toEqual([
      "Bearer token-1",
      "Bearer token-2",
    ]);
  });

  it("surfaces the second 401 with ARM's code after exactly one refresh", async () => {
    stub.on("GET", VM, expired);
    const r = await get(arm);
    expect(r).toMatchObject({
      ok: false,
      error: { status: 401, code: "ExpiredAuthenticationToken", attempts: 2 },
    });
    expect(credential.issued).toEqual(["token-1", "token-2"]);
  });
});

describe("errors surfaced at once, with ARM's error.code", () => {
  it.each([
    [400, "InvalidParameter"],
    [403, "AuthorizationFailed"],
    [404, "ResourceNotFound"],
    [409, "Conflict"],
    [412, "PreconditionFailed"],
  ])("%i %s: one attempt, the code, the message and x-ms-request-id", async (status, code) => {
    stub.on("GET", VM, {
      status,
      body: { error: { code, message: `the ${code} message` } },
      headers: { "x-ms-request-id": "req-42" },
    });
    const r = await get(arm);
    expect(r).toEqual({
      ok: false,
      error: { status, code, message: `the ${code} message`, attempts: 1, requestId: "req-42" },
    });
    expect(stub.requests).toHaveLength(1);
    expect(events[0]).toMatchObject({ operation: "getVm", status, code, attempts: 1 });
  });

  it("reads the top-level {code, message} form some resource providers use", async () => {
    stub.on("GET", VM, { status: 404, body: { code: "NotFound", message: "gone" } });
    expect(await get(arm)).toMatchObject({
      ok: false,
      error: { code: "NotFound", message: "gone" },
    });
  });

  it("names a non-JSON error body HttpError<status> and keeps a one-line excerpt", async () => {
    stub.on("GET", VM, { status: 403, body: "<html>\n  <body>Forbidden by proxy</body>\n</html>" });
    expect(await get(arm)).toMatchObject({
      ok: false,
      error: {
        status: 403,
        code: "HttpError403",
        message: "<html> <body>Forbidden by proxy</body> </html>",
      },
    });
  });
});

describe("answers that do not parse", () => {
  it("a 200 the schema refuses is InvalidResponse naming the field, not retried", async () => {
    stub.on("GET", VM, { status: 200, body: { name: 42 } });
    const r = await get(arm);
    expect(r).toMatchObject({
      ok: false,
      error: { status: 200, code: "InvalidResponse", attempts: 1 },
    });
    if (!r.ok) expect(r.error.message).toMatch(/^getVm: name: /);
    expect(stub.requests).toHaveLength(1);
  });

  it("a 200 that is not JSON is InvalidResponse", async () => {
    stub.on("GET", VM, { status: 200, body: "<html>maintenance</html>" });
    expect(await get(arm)).toMatchObject({ ok: false, error: { code: "InvalidResponse" } });
  });

  it(`a body over ${MAX_ARM_BODY_BYTES} bytes is InvalidResponse, read no further`, async () => {
    stub.on("GET", VM, { status: 200, body: { name: "x".repeat(MAX_ARM_BODY_BYTES) } });
    const r = await get(arm);
    expect(r).toMatchObject({ ok: false, error: { code: "InvalidResponse" } });
    if (!r.ok) expect(r.error.message).toContain("larger than");
  });

  it("an empty body reaches the schema as undefined", async () => {
    stub.on("POST", `${VM}/start`, { status: 202 });
    const r = await arm.request({
      method: "POST",
      path: `${VM}/start`,
      apiVersion: "2024-07-01",
      schema: z.undefined(),
      operation: "start",
    });
    expect(r).toEqual({ ok: true, value: { status: 202, body: undefined, attempts: 1 } });
  });
});
