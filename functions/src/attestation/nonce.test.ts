import { describe, expect, it } from "vitest";
import { createNonces, NONCE_LIFETIME_MS } from "./nonce";

const KEY = Buffer.alloc(32, 7);
const A = { cluster: "api", member: "vmss-api_0", bootId: "boot-a" };
const T = Date.parse("2026-11-24T03:00:00Z");

describe("challenge nonces", () => {
  it("are 32 letters and digits, as IMDS's spec allows, and check for whom they were issued", () => {
    const n = createNonces(KEY);
    const nonce = n.issue(A, T);
    expect(nonce).toMatch(/^[a-z0-9]{32}$/);
    expect(n.check(nonce, A, T + 1000)).toEqual({ ok: true, value: T });
  });

  it("refuse a nonce issued to another VM, another relay process or under another key", () => {
    const nonce = createNonces(KEY).issue(A, T);
    const n = createNonces(KEY);
    expect(n.check(nonce, { ...A, member: "vmss-api_1" }, T)).toMatchObject({
      ok: false,
      error: { code: "nonceUnknown" },
    });
    expect(n.check(nonce, { ...A, bootId: "boot-b" }, T)).toMatchObject({ ok: false });
    expect(createNonces(Buffer.alloc(32, 8)).check(nonce, A, T)).toMatchObject({ ok: false });
  });

  it("refuse an old nonce as a replay, and made-up or odd ones as not issued", () => {
    const n = createNonces(KEY);
    const nonce = n.issue(A, T);
    expect(n.check(nonce, A, T + NONCE_LIFETIME_MS + 1000)).toMatchObject({
      ok: false,
      error: { code: "replay" },
    });
    expect(n.check("20260728-192400", A, T)).toMatchObject({
      ok: false,
      error: { code: "nonceUnknown" },
    });
    expect(n.check("0".repeat(32), A, T)).toMatchObject({
      ok: false,
      error: { code: "nonceUnknown" },
    });
    // Issued "in the future" (a forged time with a valid-looking tail) is not ours either.
    expect(n.check(n.issue(A, T + 3_600_000), A, T)).toMatchObject({
      ok: false,
      error: { code: "nonceUnknown" },
    });
  });
});
