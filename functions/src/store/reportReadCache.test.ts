import { describe, expect, it } from "vitest";
import type { StoredEntity } from "./codec";
import { REPORT_READ_CACHE_LIMITS, ReportReadCache } from "./reportReadCache";

const row = (rk: string, size = 10): StoredEntity => ({
  partitionKey: "p",
  rowKey: rk,
  d0: "x".repeat(size),
});

function cacheAt(limits = REPORT_READ_CACHE_LIMITS) {
  const clock = { t: 0 };
  return { clock, cache: new ReportReadCache(() => clock.t, limits) };
}

describe("report read cache", () => {
  it("answers readiness rows only for the event ETag they were kept under, absent rows included", () => {
    const { cache } = cacheAt();
    cache.keepReadiness("c", "e", "etag-1", "vm-0", row("vm-0"));
    cache.keepReadiness("c", "e", "etag-1", "vm-1", null);
    expect(cache.readiness("c", "e", "etag-1", "vm-0")?.rowKey).toBe("vm-0");
    expect(cache.readiness("c", "e", "etag-1", "vm-1")).toBeNull();
    expect(cache.readiness("c", "e", "etag-1", "vm-2")).toBeUndefined();
    expect(cache.readiness("c", "e", "etag-2", "vm-0")).toBeUndefined();
    // A row read under a newer ETag starts over: the older copies no longer hold.
    cache.keepReadiness("c", "e", "etag-2", "vm-2", row("vm-2"));
    expect(cache.readiness("c", "e", "etag-2", "vm-0")).toBeUndefined();
    expect(cache.readiness("c", "e", "etag-2", "vm-2")?.rowKey).toBe("vm-2");
  });

  it("moves an event's copies to the ETag of this instance's own rewrite, with the rows it wrote; not from another ETag", () => {
    const { cache } = cacheAt();
    cache.keepReadiness("c", "e", "etag-1", "vm-0", row("vm-0"));
    cache.keepReadiness("c", "e", "etag-1", "vm-1", null);
    cache.eventWritten("c", "e", "etag-1", "etag-2", new Map([["vm-1", row("vm-1")]]));
    expect(cache.readiness("c", "e", "etag-2", "vm-0")?.rowKey).toBe("vm-0");
    expect(cache.readiness("c", "e", "etag-2", "vm-1")?.rowKey).toBe("vm-1");
    expect(cache.readiness("c", "e", "etag-1", "vm-0")).toBeUndefined();
    // Written over an ETag the copies were not kept for: only the rows written are known.
    cache.eventWritten("c", "e", "etag-9", "etag-3", new Map([["vm-2", row("vm-2")]]));
    expect(cache.readiness("c", "e", "etag-3", "vm-0")).toBeUndefined();
    expect(cache.readiness("c", "e", "etag-3", "vm-2")?.rowKey).toBe("vm-2");
  });

  it("answers member rows for 5 s, absent ones included, and forgets one on request", () => {
    const { clock, cache } = cacheAt();
    cache.keepMember("c", "vm-0", { row: row("vm-0"), legacy: false });
    cache.keepMember("c", "vm-1", null);
    expect(cache.member("c", "vm-0")?.row.rowKey).toBe("vm-0");
    expect(cache.member("c", "vm-1")).toBeNull();
    cache.forgetMember("c", "vm-1");
    expect(cache.member("c", "vm-1")).toBeUndefined();
    clock.t = REPORT_READ_CACHE_LIMITS.memberTtlMs + 1;
    expect(cache.member("c", "vm-0")).toBeUndefined();
  });

  it("stays under its byte budget, evicting the least recently used", () => {
    const { cache } = cacheAt({ ...REPORT_READ_CACHE_LIMITS, maxBytes: 200_000 });
    for (let i = 0; i < 1_000; i++) {
      cache.keepReadiness("c", `e-${i}`, "etag", "vm", row("vm", 1_000));
      cache.keepMember("c", `vm-${i}`, { row: row(`vm-${i}`, 1_000), legacy: false });
      expect(cache.estimatedBytes).toBeLessThanOrEqual(200_000);
    }
    expect(cache.member("c", "vm-999")).toEqual({ row: row("vm-999", 1_000), legacy: false });
    expect(cache.member("c", "vm-0")).toBeUndefined();
    expect(cache.readiness("c", "e-0", "etag", "vm")).toBeUndefined();
  });

  it("counts a row replaced in an event's copies once", () => {
    const { cache } = cacheAt();
    cache.keepReadiness("c", "e", "etag", "vm", row("vm", 1_000));
    const once = cache.estimatedBytes;
    for (let i = 0; i < 10; i++) cache.keepReadiness("c", "e", "etag", "vm", row("vm", 1_000));
    expect(cache.estimatedBytes).toBe(once);
  });
});
