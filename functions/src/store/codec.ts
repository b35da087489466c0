/**
 * A record is stored as its JSON text split across string properties `d0..dN`: one string
 * property holds at most 64 KiB (32K UTF-16 units) and an entity at most 1 MiB and 255
 * properties, so a record up to ~900 KB (an event naming 1,000 VMs is ~100 KB) fits one entity.
 * A few plain columns beside the JSON exist only to be queried.
 */

import { parseJsonWith, type Result } from "@quiesce/protocol";
import type { z } from "zod";

const CHUNK_CHARS = 30_000;
const MAX_CHUNKS = 30;

export type Column = string | number | boolean;

export interface StoredEntity {
  partitionKey: string;
  rowKey: string;
  etag?: string;
  [property: string]: unknown;
}

export class RecordTooLargeError extends Error {
  override name = "RecordTooLargeError";
}

export function toEntity(
  partitionKey: string,
  rowKey: string,
  record: unknown,
  columns: Record<string, Column | null | undefined> = {},
): StoredEntity {
  const json = JSON.stringify(record);
  const parts = splitJson(json);
  if (parts.length > MAX_CHUNKS)
    throw new RecordTooLargeError(`record of ${json.length} characters exceeds an entity`);
  const entity: StoredEntity = { partitionKey, rowKey, n: parts.length };
  parts.forEach((part, i) => {
    entity[`d${i}`] = part;
  });
  for (const [k, v] of Object.entries(columns)) if (v !== null && v !== undefined) entity[k] = v;
  return entity;
}

/** Splits never inside a surrogate pair: half a pair cannot travel as UTF-8. */
function splitJson(json: string): string[] {
  const parts: string[] = [];
  let at = 0;
  do {
    let end = Math.min(json.length, at + CHUNK_CHARS);
    const last = json.charCodeAt(end - 1);
    if (end < json.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(json.slice(at, end));
    at = end;
  } while (at < json.length);
  return parts;
}

/** The record's JSON text, put back together from d0..dN, or what is missing from the entity. */
export function entityJson(entity: Record<string, unknown>): Result<string> {
  const chunks = entity.n ?? 1;
  if (typeof chunks !== "number" || !Number.isInteger(chunks) || chunks < 1 || chunks > MAX_CHUNKS)
    return { ok: false, error: `n: not a part count (${String(chunks).slice(0, 40)})` };
  let json = "";
  for (let i = 0; i < chunks; i++) {
    const part = entity[`d${i}`];
    if (typeof part !== "string") return { ok: false, error: `d${i}: missing` };
    json += part;
  }
  return { ok: true, value: json };
}

/** A stored record through its schema: the value, or one line saying why it does not parse. */
export function decodeEntity<S extends z.ZodType>(
  schema: S,
  entity: Record<string, unknown>,
): Result<z.output<S>> {
  const json = entityJson(entity);
  return json.ok ? parseJsonWith(schema, json.value) : json;
}
