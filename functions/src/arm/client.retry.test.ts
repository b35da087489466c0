import { backoffMs } from "@quiesce/protocol";
import { recordingCredential, useHttpStub } from "@quiesce/testkit/stub";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ArmClient, type ArmClientOptions, createArmClient } from "./index";

// What the client retries and how long it waits: the waits are asked of an injected sleep and
// recorded, never slept, so a 30 s budget costs nothing.

const VM =
  "/subscriptions/sub-1/resourceGroups/rg-web/providers/Microsoft.Compute/virtualMachines/web-0";
const NOW = Date.parse("2026-11-23T05:00:00Z");
const ok = { status: 200, body: { name: "web-0" } };
const throttled = (headers: Record<string, string>) => ({
  status: 429,
  headers,
  body: { error: { code: "TooManyRequests", message: "The request is being throttled." } },
});

const stub = useHttpStub();
let waits: number[];
let arm: ArmClient;
const client = (options?: Partial<ArmClientOptions>) => {
  arm = createArmClient({
    endpoint: stub.url,
    credential: recordingCredential(),
    clock: { now: () => NOW },
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return arm;
};
const get = (a: ArmClient) =>
  a.request({
    method: "GET",
    path: VM,
    apiVersion: "2024-07-01",
    schema: z.object({ name: z.string() }),
    operation: "getVm",
  });

beforeEach(() => {
  waits = [];
});
afterEach(() => arm?.close());

describe("Retry-After", () => {
  it("429 with Retry-After: 1 waits one second, then succeeds", async () => {
    stub.on("GET", VM, throttled({ "retry-after": "1" }), ok);
    expect(await get(client())).toMatchObject({ ok: true, value: { attempts: 2 } });
    expect(waits).toEqual([1000]);
  });

  it("reads an HTTP-date Retry-After against the client's clock", async () => {
    const at = new Date(NOW + 7_000).toUTCString();
    stub.on("GET", VM, throttled({ "retry-after": at }), ok);
    await get(client());
    expect(waits).toEqual([7000]);
  });

  it("prefers x-ms-retry-after-ms, which is in milliseconds", async () => {
    stub.on("GET", VM, throttled({ "x-ms-retry-after-ms": "250", "retry-after": "5" }), ok);
    await get(client());
    expect(waits).toEqual([250]);
  });

  it("honours Retry-After on a 503 too", async () => {
    stub.on("GET", VM, { status: 503, headers: { "retry-after": "2" }, body: "busy" }, ok);
    await get(client());
    expect(waits).toEqual([2000]);
  });

  it("stops at once with retryAfterMs when the server asks for longer than the budget left", async () => {
    stub.on("GET", VM, throttled({ "retry-after": "1" }), throttled({ "retry-after": "60" }));
    const r = await get(client({ maxRetryWaitMs: 30_000 }));
    expect(r).toMatchObject({
      ok: false,
      error: { status: 429, code: "TooManyRequests", attempts: 2, retryAfterMs: 60_000 },
    });
    expect(waits).toEqual([1000]);
  });
});

describe("server errors and lost answers", () => {
  it.each([500, 502, 503, 504])(
    "%i is retried with backoff up to maxAttempts, then surfaced with the attempts made",
    async (status) => {
      stub.on("GET", VM, {
        status,
        body: { error: { code: "InternalServerError", message: "x" } },
      });
      const r = await get(client({ maxAttempts: 3 }));
      expect(r).toMatchObject({
        ok: false,
        error: { status, code: "InternalServerError", attempts: 3 },
      });
      expect(stub.requests).toHaveLength(3);
      const b = { baseMs: 1_000, maxMs: 8_000, jitter: "equal" } as const;
      expect(waits).toEqual([backoffMs(1, b, 0.5), backoffMs(2, b, 0.5)]);
    },
  );

  it("never waits more than maxRetryWaitMs in total across backoffs", async () => {
    stub.on("GET", VM, { status: 500, body: "" });
    await get(client({ maxAttempts: 10, maxRetryWaitMs: 5_000 }));
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5_000);
    expect(waits.at(-1)).toBeGreaterThan(0);
  });

  it("retries a dropped connection and succeeds", async () => {
    stub.on("GET", VM, { drop: true }, ok);
    expect(await get(client())).toMatchObject({ ok: true, value: { attempts: 2 } });
  });

  it("surfaces NetworkError (status 0) once every attempt lost its connection", async () => {
    stub.on("GET", VM, { drop: true });
    const r = await get(client({ maxAttempts: 2 }));
    expect(r).toMatchObject({ ok: false, error: { status: 0, code: "NetworkError", attempts: 2 } });
  });

  it("ends an attempt that gets no answer at timeoutMs and surfaces Timeout", async () => {
    stub.on("GET", VM, { hang: true });
    const started = Date.now();
    const r = await get(client({ maxAttempts: 2, timeoutMs: 150 }));
    expect(r).toMatchObject({ ok: false, error: { status: 0, code: "Timeout", attempts: 2 } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("keeps one client request id across the attempts of a call", async () => {
    stub.on("GET", VM, { status: 503, body: "" }, ok);
    await get(client());
    const ids = stub.requests.map((r) => r.headers["x-ms-client-request-id"]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });
});
