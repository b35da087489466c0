import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";

/**
 * Pure paging for the status API. Table Storage returns rows in key order only, so the order an
 * operator wants (active events oldest first, ended ones newest first) is computed from a small
 * projection of the matching rows, and a page is "the next N after this position". A position
 * is a sort key, not an offset: rows added or removed between pages do not shift the rest.
 */

/** Where an event sits in the order: active (section 0) oldest first, then ended newest first. */
export interface EventPosition {
  /** 0 active, 1 ended. */
  s: 0 | 1;
  /** firstSeenAt when active, -endedAt when ended: ascending in both sections. */
  t: number;
  /** Cluster name, then event key: ties broken the same way on every page. */
  c: string;
  k: string;
}

const EventPositionSchema = z.strictObject({
  s: z.union([z.literal(0), z.literal(1)]),
  t: z.number().finite(),
  c: z.string().max(64),
  k: z.string().max(1024),
});

export function compareEventPositions(a: EventPosition, b: EventPosition): number {
  if (a.s !== b.s) return a.s - b.s;
  if (a.t !== b.t) return a.t - b.t;
  if (a.c !== b.c) return a.c < b.c ? -1 : 1;
  if (a.k !== b.k) return a.k < b.k ? -1 : 1;
  return 0;
}

/** A member page position: the last member key shown (members sort by key). */
const MemberPositionSchema = z.strictObject({ m: z.string().max(1024) });
export type MemberPosition = z.infer<typeof MemberPositionSchema>;

export const encodeToken = (position: EventPosition | MemberPosition): string =>
  Buffer.from(JSON.stringify(position), "utf8").toString("base64url");

/** A token from outside: base64url of JSON, parsed by the position's schema; null when it is not one. */
function decodeWith<T>(schema: z.ZodType<T>, token: string): T | null {
  const r = parseJsonWith(schema, Buffer.from(token, "base64url").toString("utf8"));
  return r.ok ? r.value : null;
}

export const decodeEventToken = (token: string): EventPosition | null =>
  decodeWith(EventPositionSchema, token);
export const decodeMemberToken = (token: string): MemberPosition | null =>
  decodeWith(MemberPositionSchema, token);

/** The items after `after` (all when null) in an ascending list, at most `limit`. */
export function nextSlice<T>(
  sorted: readonly T[],
  after: ((item: T) => boolean) | null,
  limit: number,
): { slice: T[]; more: boolean } {
  let start = 0;
  if (after) while (start < sorted.length && !after(sorted[start] as T)) start++;
  const slice = sorted.slice(start, start + limit);
  return { slice, more: start + limit < sorted.length };
}

/**
 * Keeps items while the page's JSON stays within `budget` bytes (always at least one, so a page
 * always moves forward): an event naming 1,000 VMs weighs as much as a hundred small ones.
 */
export function withinBytes<T>(items: readonly T[], budget: number): { kept: T[]; cut: boolean } {
  const kept: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item), "utf8") + 1;
    if (kept.length > 0 && bytes + size > budget) return { kept, cut: true };
    kept.push(item);
    bytes += size;
  }
  return { kept, cut: false };
}

/** Rows, readiness and views are read this many events at a time, until the page is full. */
export const VIEW_BATCH = 100;

/**
 * Builds views in order, a batch at a time, and stops reading once the page's byte budget is
 * spent: rows are only read for what can be shown (an event row may hold 1,000 VM names).
 * `build` answers one view per head, null for a row gone meanwhile.
 */
export async function viewsWithinBytes<H, V>(
  heads: readonly H[],
  batch: number,
  budget: number,
  build: (heads: H[]) => Promise<Array<V | null>>,
): Promise<{ shown: Array<{ head: H; view: V }>; cut: boolean }> {
  const shown: Array<{ head: H; view: V }> = [];
  let bytes = 0;
  for (let i = 0; i < heads.length; i += batch) {
    const part = heads.slice(i, i + batch);
    const views = await build(part);
    for (const [j, view] of views.entries()) {
      if (view === null) continue;
      const size = Buffer.byteLength(JSON.stringify(view), "utf8") + 1;
      if (shown.length > 0 && bytes + size > budget) return { shown, cut: true };
      shown.push({ head: part[j] as H, view });
      bytes += size;
    }
  }
  return { shown, cut: false };
}
