import type { Member } from "@quiesce/core";
import { describe, expect, it } from "vitest";
import { IDLE_CACHE_LIMITS, IdleMemberCache } from "./idleMemberCache";

const member = (name: string, long = 0, eventKeys: string[] = []): Member => ({
  vmName: name,
  vm: {
    name,
    vmId: "id",
    resourceId: `/subscriptions/x/virtualMachines/${name}${"r".repeat(long)}`,
    ...(long ? { vmScaleSetName: "s".repeat(512), placementGroupId: "p".repeat(512) } : {}),
  },
  relayVersion: "1.0.0",
  dryRun: false,
  bootId: "b",
  incarnation: 1,
  eventKeys,
  firstSeenAt: 0,
  lastSeenAt: 0,
});

describe("idle member cache", () => {
  it("stays under its byte budget however large the identities, evicting the least recently seen", () => {
    const cache = new IdleMemberCache(() => 0, { ...IDLE_CACHE_LIMITS, maxBytes: 1_000_000 });
    for (let i = 0; i < 5_000; i++) cache.remember("c", `vm-${i}`, member(`vm-${i}`, 900), "e");
    expect(cache.estimatedBytes).toBeLessThanOrEqual(1_000_000);
    expect(cache.size).toBeGreaterThan(100);
    expect(cache.get("c", "vm-4999")).toMatchObject({ member: member("vm-4999", 900), etag: "e" });
    expect(cache.get("c", "vm-0")).toBeUndefined();
  });

  it("drops expired entries as new ones arrive, not only when their own VM reports again", () => {
    let now = 0;
    const cache = new IdleMemberCache(() => now);
    for (let i = 0; i < 100; i++) cache.remember("c", `old-${i}`, member(`old-${i}`), "e");
    now += IDLE_CACHE_LIMITS.ttlMs + 1;
    cache.remember("c", "new", member("new"), "e");
    expect(cache.size).toBe(1);
  });

  it("keeps only idle members, and forgets one whose row another instance wrote", () => {
    const cache = new IdleMemberCache(() => 0);
    cache.remember("c", "busy", member("busy", 0, ["ev"]), "e");
    expect(cache.get("c", "busy")).toBeUndefined();
    cache.remember("c", "idle", member("idle"), "e1");
    expect(cache.get("c", "idle")?.etag).toBe("e1");
    cache.forget("c", "idle");
    expect(cache.get("c", "idle")).toBeUndefined();
    expect(cache.estimatedBytes).toBe(0);
  });
});
