import type { Member } from "@quiesce/core";

/**
 * Idle members this instance read or wrote lately, with their ETags. An idle heartbeat (nothing in
 * its document, no hooks, no approvals) whose member is cached as idle is decided on the cached
 * row without reading it. This is safe against other instances writing the row meanwhile: with no
 * events at the cached incarnation and none in the report, a stale row can only make the core
 * want a write it would not (the ETag then fails, the entry is dropped and the report re-read and
 * re-decided), or skip one for a report that is older than the stored row anyway (IMDS
 * incarnations only grow, and equal incarnations hold equal events).
 *
 * Bounded three ways: entries, estimated bytes, and age. A count alone is not a bound: a VM
 * identity may carry a 1 KiB resource id and seven 512-character fields, so 50,000 entries of
 * such identities (what a fuzzer or a misconfigured fleet sends) held ~300 MB. Expired entries
 * are dropped as new ones arrive, not only when their own VM reports again.
 */

export interface CachedMember {
  member: Member;
  etag: string;
  at: number;
}

export interface IdleCacheLimits {
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
}

export const IDLE_CACHE_LIMITS: IdleCacheLimits = {
  maxEntries: 50_000,
  maxBytes: 32 * 1024 * 1024,
  // Longer than the default idle heartbeat's write period (lastSeenAt is rewritten, and the entry
  // remembered again, every third 5-minute heartbeat), so a relay served by one instance is
  // decided from this copy between writes.
  ttlMs: 20 * 60_000,
};

/** What an entry costs in memory, roughly: UTF-16 strings plus the objects around them. */
export function estimateBytes(key: string, m: Member, etag: string): number {
  let chars = key.length + etag.length + m.vmName.length + m.relayVersion.length + m.bootId.length;
  for (const v of Object.values(m.vm)) if (typeof v === "string") chars += v.length;
  for (const k of m.eventKeys) chars += k.length;
  return 2 * chars + 512;
}

export class IdleMemberCache {
  /** Map order is least recently seen first: entries are re-inserted when seen. */
  private readonly entries = new Map<string, CachedMember & { bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly now: () => number,
    private readonly limits: IdleCacheLimits = IDLE_CACHE_LIMITS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get estimatedBytes(): number {
    return this.bytes;
  }

  get(cluster: string, mk: string): CachedMember | undefined {
    const key = `${cluster}|${mk}`;
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (this.now() - hit.at > this.limits.ttlMs) {
      this.delete(key);
      return undefined;
    }
    return hit;
  }

  /** Remembers a member row as this instance last saw it, if it is idle (no events). */
  remember(cluster: string, mk: string, member: Member, etag: string): void {
    const key = `${cluster}|${mk}`;
    this.delete(key);
    if (member.eventKeys.length > 0) return;
    const now = this.now();
    const bytes = estimateBytes(key, member, etag);
    if (bytes > this.limits.maxBytes) return;
    this.entries.set(key, { member, etag, at: now, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      const over = this.entries.size > this.limits.maxEntries || this.bytes > this.limits.maxBytes;
      if (!over && now - entry.at <= this.limits.ttlMs) break;
      this.delete(oldest);
    }
  }

  forget(cluster: string, mk: string): void {
    this.delete(`${cluster}|${mk}`);
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}
