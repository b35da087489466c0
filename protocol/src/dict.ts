/**
 * Records keyed by text from outside (VM names, EventIds). They are null-prototype objects, so a
 * VM named `constructor` or an EventId `__proto__` is a key like any other: a plain `{}` would
 * answer `Object` for `members["constructor"]`, and `{...d}` or `d[k] = v` with `__proto__` would
 * set the prototype instead of an entry. Build them only with these helpers; reading is plain
 * indexing, `Object.values` and `Object.entries`.
 */
export type Dict<T> = Record<string, T>;

export function dict<T>(entries: Iterable<readonly [string, T]> = []): Dict<T> {
  const d = Object.create(null) as Dict<T>;
  for (const [k, v] of entries) d[k] = v;
  return d;
}

/** A copy of `d` with `key` set: the core never mutates its input. */
export function withEntry<T>(d: Dict<T>, key: string, value: T): Dict<T> {
  const out = dict(Object.entries(d));
  out[key] = value;
  return out;
}

/** The entry only if `d` itself holds it (never one inherited from a plain object's prototype). */
export function entryOf<T>(d: Dict<T>, key: string): T | undefined {
  return Object.hasOwn(d, key) ? d[key] : undefined;
}
