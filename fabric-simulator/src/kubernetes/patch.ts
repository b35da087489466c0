import { parseJsonWith, type Result } from "@quiesce/protocol";
import { z } from "zod";

/**
 * PATCH bodies by Content-Type, as the API server takes them: JSON merge patch (RFC 7386),
 * strategic merge patch (a merge patch for maps and scalars; a list with a patchMergeKey, such as
 * NodeStatus.conditions by `type`, has its entries merged by that key, `$patch: delete` removing
 * one, and entries the patch does not name kept) and JSON patch (RFC 6902: add, remove, replace,
 * test). Server-side apply is not served.
 */

export const MERGE_PATCH = "application/merge-patch+json";
export const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
export const JSON_PATCH = "application/json-patch+json";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k] ?? null, v);
  }
  return out;
}

/** The lists served with a patchMergeKey, by path (`status.conditions` → `type`). */
export type MergeKeys = Readonly<Record<string, string>>;

export function strategicMergePatch(
  target: Json,
  patch: Json,
  keys: MergeKeys,
  path = "",
): Result<Json> {
  if (!isObject(patch)) return { ok: true, value: patch };
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    // An order directive (client-go sends one with a list): the stand-in keeps its own order.
    if (k.startsWith("$setElementOrder/")) continue;
    const at = path ? `${path}.${k}` : k;
    const key = keys[at];
    if (v === null) {
      delete out[k];
      continue;
    }
    const r =
      key && Array.isArray(v)
        ? mergeByKey(out[k] ?? null, v, key, at)
        : strategicMergePatch(out[k] ?? null, v, keys, at);
    if (!r.ok) return r;
    out[k] = r.value;
  }
  return { ok: true, value: out };
}

function mergeByKey(target: Json, patch: Json[], key: string, path: string): Result<Json> {
  const list = Array.isArray(target) ? [...target] : [];
  for (const item of patch) {
    const id = isObject(item) ? item[key] : undefined;
    if (!isObject(item) || id === undefined)
      return { ok: false, error: `${path}: an entry does not contain the merge key ${key}` };
    const at = list.findIndex((e) => isObject(e) && e[key] === id);
    const { $patch: directive, ...fields } = item;
    if (directive === "delete") {
      if (at >= 0) list.splice(at, 1);
    } else if (directive !== undefined) {
      return { ok: false, error: `${path}: unsupported $patch ${JSON.stringify(directive)}` };
    } else if (at >= 0) list[at] = mergePatch(list[at] ?? null, fields);
    else list.push(mergePatch(null, fields));
  }
  return { ok: true, value: list };
}

const pointerToken = (t: string) => t.replaceAll("~1", "/").replaceAll("~0", "~");

function jsonPatchOp(doc: Json, op: Record<string, Json>): Result<Json> {
  const path = op.path;
  if (typeof path !== "string" || (path !== "" && !path.startsWith("/")))
    return { ok: false, error: `invalid path ${JSON.stringify(path)}` };
  const tokens = path === "" ? [] : path.slice(1).split("/").map(pointerToken);
  const root = structuredClone(doc);
  if (tokens.length === 0) {
    if (op.op === "test")
      return JSON.stringify(root) === JSON.stringify(op.value)
        ? { ok: true, value: root }
        : { ok: false, error: "test failed" };
    return { ok: true, value: op.op === "remove" ? null : (op.value ?? null) };
  }
  let parent: Json = root;
  for (const t of tokens.slice(0, -1)) {
    const next: Json | undefined = isObject(parent) ? parent[t] : undefined;
    if (next === undefined) return { ok: false, error: `path ${path} does not exist` };
    parent = next;
  }
  const last = tokens[tokens.length - 1] as string;
  if (!isObject(parent)) return { ok: false, error: `path ${path}: parent is not an object` };
  const exists = Object.hasOwn(parent, last);
  switch (op.op) {
    case "add":
      parent[last] = op.value ?? null;
      return { ok: true, value: root };
    case "replace":
      if (!exists) return { ok: false, error: `replace: ${path} does not exist` };
      parent[last] = op.value ?? null;
      return { ok: true, value: root };
    case "remove":
      if (!exists) return { ok: false, error: `remove: ${path} does not exist` };
      delete parent[last];
      return { ok: true, value: root };
    case "test":
      return JSON.stringify(parent[last]) === JSON.stringify(op.value)
        ? { ok: true, value: root }
        : { ok: false, error: `test failed at ${path}` };
    default:
      return { ok: false, error: `unsupported operation ${JSON.stringify(op.op)}` };
  }
}

export function jsonPatch(doc: Json, ops: Json): Result<Json> {
  if (!Array.isArray(ops))
    return { ok: false, error: "a JSON patch must be an array of operations" };
  let cur = doc;
  for (const op of ops) {
    if (!isObject(op)) return { ok: false, error: "each operation must be an object" };
    const r = jsonPatchOp(cur, op);
    if (!r.ok) return r;
    cur = r.value;
  }
  return { ok: true, value: cur };
}

/** The media type without parameters (`; charset=utf-8`). */
export const mediaType = (header: string | undefined): string =>
  (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

/** Applies a PATCH body of `contentType` to `doc`; `unsupported` for a media type not served. */
export function applyPatch(
  doc: unknown,
  contentType: string,
  text: string,
  mergeKeys: MergeKeys = {},
): Result<unknown, { unsupported: boolean; message: string }> {
  if (![MERGE_PATCH, STRATEGIC_MERGE_PATCH, JSON_PATCH].includes(contentType))
    return { ok: false, error: { unsupported: true, message: contentType } };
  const parsed = parseJsonWith(z.json(), text);
  if (!parsed.ok)
    return { ok: false, error: { unsupported: false, message: "the patch is not valid JSON" } };
  const body: Json = parsed.value;
  if (contentType === JSON_PATCH) {
    const r = jsonPatch(doc as Json, body);
    return r.ok ? r : { ok: false, error: { unsupported: false, message: r.error } };
  }
  if (!isObject(body))
    return {
      ok: false,
      error: { unsupported: false, message: "a merge patch must be a JSON object" },
    };
  if (contentType === MERGE_PATCH) return { ok: true, value: mergePatch(doc as Json, body) };
  const r = strategicMergePatch(doc as Json, body, mergeKeys);
  return r.ok ? r : { ok: false, error: { unsupported: false, message: r.error } };
}
