/**
 * Table Storage forbids `/ \ # ?` and control characters (U+0000-U+001F, U+007F-U+009F) in
 * PartitionKey and RowKey, and limits each to 1 KiB. VM names, resource ids and EventIds come
 * from outside, so every key is escaped reversibly: those characters, `%` itself (the escape),
 * `'` (so a key can never close an OData string literal) and lone surrogates (which UTF-8 cannot
 * carry) become `%XX` / `%uXXXX`. Everything else, including non-ASCII letters, passes through.
 */

const MAX_KEY_BYTES = 1024;

const NEEDS_ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  /[%/\\#?'\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export class KeyTooLongError extends Error {
  override name = "KeyTooLongError";
}

export function encodeKey(text: string): string {
  const encoded = text.replace(NEEDS_ESCAPE, (ch) => {
    const code = ch.charCodeAt(0);
    return code <= 0xff
      ? `%${code.toString(16).toUpperCase().padStart(2, "0")}`
      : `%u${code.toString(16).toUpperCase().padStart(4, "0")}`;
  });
  if (Buffer.byteLength(encoded, "utf8") > MAX_KEY_BYTES)
    throw new KeyTooLongError(`table key longer than ${MAX_KEY_BYTES} bytes once encoded`);
  return encoded;
}

export function decodeKey(key: string): string {
  return key.replace(
    /%u([0-9A-F]{4})|%([0-9A-F]{2})/g,
    (_m, wide: string | undefined, narrow: string | undefined) =>
      String.fromCharCode(Number.parseInt((wide ?? narrow) as string, 16)),
  );
}

/** Readiness and history rows are partitioned per event: `cluster|eventKey`. */
export function eventPartition(cluster: string, eventKey: string): string {
  // `|` is never escaped, but neither a cluster name (ClusterName) nor an escaped key's prefix
  // ambiguity matters: the cluster part cannot contain `|`, so the split is unique.
  return `${encodeKey(cluster)}|${encodeKey(eventKey)}`;
}
