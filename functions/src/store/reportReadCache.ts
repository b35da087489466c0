import type { StoredEntity } from "./codec";
import type { MemberRow } from "./memberRows";

/**
 * Rows of other VMs that this instance read or wrote lately for reports: the readiness rows of an
 * event, as of its event row's ETag, and the member rows of the VMs events name.
 *
 * Every relay that sees an event reports every active interval, and each report's decision reads
 * the event's named VMs' readiness and member rows, the same rows for every reporter of the
 * event: 6.6 point reads per report in bench (d), where the CPU per report went. A report decided
 * on these copies is kept only if it changes nothing (pipeline/report.ts): any decision that
 * writes (a transition, an election, a readiness change, a member's lastSeenAt) is made again
 * once the copied rows are read afresh, so every write is decided as before. What a no-op
 * decision answers from them:
 *
 * - Readiness rows are exact for the event row's ETag they are kept under: the writer rewrites an
 *   event's row whenever one of its readiness rows changes (decisionWriter.ts), so a changed row
 *   comes with a new event ETag, and a report reads its events' rows fresh. When this instance
 *   rewrites an event row under the ETag its copies are kept for, no other row of the event can
 *   have changed meanwhile (that writer's event write would have come first, failing this one), so
 *   the copies move to the new ETag with the rows it wrote. (Only an attempt that failed between
 *   its two writes leaves a row newer than its event's ETag; its retry rewrites the event, and
 *   `readinessTtlMs` bounds the rest.)
 * - Member rows may be up to `memberTtlMs` old. A member's `lastSeenAt` only grows, so an old copy
 *   makes a VM look less live, never more: the answer's cadence is then the active interval
 *   (cadence.ts: the bystander may be needed), and a liveness change the old copy implies is a
 *   transition, decided again from fresh reads. The reporter's own member row is always read.
 *
 * Bounded by estimated bytes and by age; least recently used entries go first.
 */

export interface ReportReadCacheLimits {
  maxBytes: number;
  /** How long a member row of another VM is answered from. */
  memberTtlMs: number;
  /** How long an event's readiness rows are kept for one ETag. */
  readinessTtlMs: number;
}

export const REPORT_READ_CACHE_LIMITS: ReportReadCacheLimits = {
  // 100 events in flight naming 100 VMs each, with ~1 KB rows, is ~20 MB of copies.
  maxBytes: 24 * 1024 * 1024,
  // One active interval (5 s by default): a group's reports share a copy, and it is a small
  // part of the liveness timeout (90 s by default; a copy that tips a VM over it is a transition,
  // decided again from fresh reads).
  memberTtlMs: 5_000,
  readinessTtlMs: 60_000,
};

interface EventCopies {
  kind: "readiness";
  key: string;
  /** The event row's ETag the rows are exact for. */
  version: string;
  /** Null: the row was not there. */
  rows: Map<string, StoredEntity | null>;
  at: number;
  bytes: number;
}

interface MemberCopy {
  kind: "member";
  found: MemberRow | null;
  at: number;
  bytes: number;
}

export class ReportReadCache {
  /** Map order is least recently used first: entries are re-inserted when used. */
  private readonly entries = new Map<string, EventCopies | MemberCopy>();
  private bytes = 0;

  constructor(
    private readonly now: () => number,
    private readonly limits: ReportReadCacheLimits = REPORT_READ_CACHE_LIMITS,
  ) {}

  get estimatedBytes(): number {
    return this.bytes;
  }

  /** A readiness row as of the event's ETag: the row, null when absent, undefined when unknown. */
  readiness(
    cluster: string,
    eventKey: string,
    eventEtag: string,
    mk: string,
  ): StoredEntity | null | undefined {
    const hit = this.use(readinessKey(cluster, eventKey), this.limits.readinessTtlMs);
    return hit?.kind === "readiness" && hit.version === eventEtag ? hit.rows.get(mk) : undefined;
  }

  /** A readiness row read while the event row's ETag was `eventEtag`. */
  keepReadiness(
    cluster: string,
    eventKey: string,
    eventEtag: string,
    mk: string,
    row: StoredEntity | null,
  ): void {
    const key = readinessKey(cluster, eventKey);
    const entry = this.entries.get(key);
    if (entry?.kind === "readiness" && entry.version === eventEtag) {
      this.setRow(entry, mk, row);
      return;
    }
    const fresh: EventCopies = {
      kind: "readiness",
      key,
      version: eventEtag,
      rows: new Map(),
      at: this.now(),
      bytes: 2 * key.length + 256,
    };
    this.put(key, fresh);
    this.setRow(fresh, mk, row);
  }

  /**
   * This instance rewrote the event's row: from `fromEtag` (undefined: created it) to `toEtag`,
   * with the readiness rows it wrote just before. Copies kept for `fromEtag` hold for `toEtag`.
   */
  eventWritten(
    cluster: string,
    eventKey: string,
    fromEtag: string | undefined,
    toEtag: string,
    written: ReadonlyMap<string, StoredEntity>,
  ): void {
    const key = readinessKey(cluster, eventKey);
    const entry = this.entries.get(key);
    const kept =
      entry?.kind === "readiness" && fromEtag !== undefined && entry.version === fromEtag
        ? entry
        : undefined;
    if (!kept) this.delete(key);
    const target: EventCopies = kept ?? {
      kind: "readiness",
      key,
      version: toEtag,
      rows: new Map(),
      at: 0,
      bytes: 2 * key.length + 256,
    };
    target.version = toEtag;
    target.at = this.now();
    this.put(key, target);
    for (const [mk, row] of written) this.setRow(target, mk, row);
  }

  /** Another VM's member row: the row, null when absent, undefined when unknown or too old. */
  member(cluster: string, mk: string): MemberRow | null | undefined {
    const hit = this.use(memberKey(cluster, mk), this.limits.memberTtlMs);
    return hit?.kind === "member" ? hit.found : undefined;
  }

  /** A member row as read, or as this instance just wrote it (with the ETag it got). */
  keepMember(cluster: string, mk: string, found: MemberRow | null): void {
    const key = memberKey(cluster, mk);
    this.put(key, {
      kind: "member",
      found,
      at: this.now(),
      bytes: 2 * key.length + 256 + rowBytes(found?.row ?? null),
    });
  }

  /** A write of the row failed: this instance's copy may not be what storage holds. */
  forgetMember(cluster: string, mk: string): void {
    this.delete(memberKey(cluster, mk));
  }

  private use(key: string, ttlMs: number): EventCopies | MemberCopy | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (this.now() - hit.at > ttlMs) {
      this.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  private setRow(entry: EventCopies, mk: string, row: StoredEntity | null): void {
    const before = entry.rows.get(mk);
    const size = (r: StoredEntity | null | undefined) =>
      r === undefined ? 0 : rowBytes(r) + 2 * mk.length;
    const delta = size(row) - size(before);
    entry.rows.set(mk, row);
    entry.bytes += delta;
    if (this.entries.get(entry.key) === entry) this.bytes += delta;
    this.evict();
  }

  private put(key: string, entry: EventCopies | MemberCopy): void {
    this.delete(key);
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    this.evict();
  }

  private evict(): void {
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.limits.maxBytes) break;
      this.delete(oldest);
    }
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }
}

const readinessKey = (cluster: string, eventKey: string) => `r\n${cluster}\n${eventKey}`;
const memberKey = (cluster: string, mk: string) => `m\n${cluster}\n${mk}`;

/** What a row costs in memory, roughly: its strings in UTF-16 plus the object around them. */
function rowBytes(row: StoredEntity | null): number {
  let chars = 0;
  if (row) for (const v of Object.values(row)) if (typeof v === "string") chars += v.length;
  return 2 * chars + 128;
}
