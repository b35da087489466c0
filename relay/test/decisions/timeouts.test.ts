import { describe, expect, it } from "vitest";
import { hookTimeoutMs, MIN_HOOK_TIMEOUT_MS } from "../../src/decisions/timeouts";

const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("hookTimeoutMs", () => {
  it("ends a drain the safety margin before NotBefore", () => {
    expect(
      hookTimeoutMs("drain", { NotBefore: "Thu, 01 Jan 2026 00:05:00 GMT" }, NOW, 600_000, 10_000),
    ).toBe(290_000);
  });
  it("keeps at most a fifth of a short notice for the margin, so a 10 s Preempt leaves the drain 8 s", () => {
    expect(
      hookTimeoutMs("drain", { NotBefore: "Thu, 01 Jan 2026 00:00:10 GMT" }, NOW, 600_000, 10_000),
    ).toBe(8_000);
    expect(
      hookTimeoutMs("drain", { NotBefore: "Thu, 01 Jan 2026 00:00:30 GMT" }, NOW, 600_000, 10_000),
    ).toBe(24_000);
    // A 15-minute notice keeps the whole configured margin.
    expect(
      hookTimeoutMs("drain", { NotBefore: "Thu, 01 Jan 2026 00:15:00 GMT" }, NOW, 600_000, 10_000),
    ).toBe(600_000);
    expect(
      hookTimeoutMs("drain", { NotBefore: "Thu, 01 Jan 2026 00:01:00 GMT" }, NOW, 600_000, 10_000),
    ).toBe(50_000);
  });
  it("never exceeds the configured cap", () => {
    expect(
      hookTimeoutMs("drain", { NotBefore: "Thu, 01 Jan 2026 01:00:00 GMT" }, NOW, 600_000, 10_000),
    ).toBe(600_000);
  });
  it("still gives a drain a minimum when NotBefore is (nearly) past", () => {
    expect(
      hookTimeoutMs("drain", { NotBefore: "Thu, 01 Jan 2026 00:00:05 GMT" }, NOW, 600_000, 10_000),
    ).toBe(MIN_HOOK_TIMEOUT_MS);
  });
  it("gives a Started event (no NotBefore) and every recover the cap", () => {
    expect(hookTimeoutMs("drain", { NotBefore: "" }, NOW, 120_000, 10_000)).toBe(120_000);
    expect(
      hookTimeoutMs(
        "recover",
        { NotBefore: "Thu, 01 Jan 2026 00:00:30 GMT" },
        NOW,
        120_000,
        10_000,
      ),
    ).toBe(120_000);
  });
});
