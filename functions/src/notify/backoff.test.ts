import { describe, expect, it } from "vitest";
import { planRetry } from "./backoff";

describe("retry plan", () => {
  const opts = { baseMs: 5_000, maxMs: 300_000, deadlineMs: 3_600_000 };
  it("backs off exponentially with jitter in [ceiling/2, ceiling], capped", () => {
    expect(planRetry(1, 0, 0, opts, 0)).toEqual({ kind: "retry", dueAt: 2_500 });
    expect(planRetry(1, 0, 0, opts, 1)).toEqual({ kind: "retry", dueAt: 5_000 });
    expect(planRetry(3, 0, 0, opts, 1)).toEqual({ kind: "retry", dueAt: 20_000 });
    expect(planRetry(40, 0, 0, opts, 1)).toEqual({ kind: "retry", dueAt: 300_000 });
  });
  it("drops once the next try would land past the deadline", () => {
    expect(planRetry(1, 0, 3_598_000, opts, 1)).toEqual({ kind: "drop" });
  });
});
