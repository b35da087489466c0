import { memberKey } from "@quiesce/core";
import { eventKey } from "@quiesce/protocol/imds";

/**
 * Table Storage forbids `/ \ # ?` and control characters (U+0000-U+001F, U+007F-U+009F) in
 * PartitionKey and RowKey, and limits each to 1 KiB. VM names, resource ids and EventIds come
 * from outside, so every key is escaped reversibly: those characters, `%` itself (the escape),
 * `'` (so a key can never close an OData string literal) and lone surrogates (which UTF-8 cannot
 * carry) become `%XX` / `%uXXXX`. So do the line and paragraph separators (U+2028, U+2029) and a
 * comma that starts a key: legal in Azure, but Azurite's parser of entity group transactions
 * (an election's, budget.ts) loses a sub-request that holds a separator, and reads a key
 * `RowKey=',…'` in a sub-request's URL as part of its PartitionKey, so such a transaction failed
 * every time (measured on Azurite 3.35: test/integration/batchKeys.test.ts). Everything else,
 * including non-ASCII letters, spaces and other commas, passes through.
 *
 * The 1 KiB is of UTF-16 (the service stores keys as UTF-16), so it is 512 UTF-16 code units,
 * whatever their UTF-8 length: Azurite accepts 512 `a`, 512 `é` or 256 `🙂` and refuses one more
 * (measured; Microsoft's "Understanding the Table service data model" gives the 1 KiB).
 */

export const MAX_KEY_LENGTH = 512;

const NEEDS_ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  /[%/\\#?'\u0000-\u001f\u007f-\u009f\u2028\u2029]|^,|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

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
  if (encoded.length > MAX_KEY_LENGTH)
    throw new KeyTooLongError(
      `too long to be a table key once escaped (${encoded.length} > ${MAX_KEY_LENGTH} UTF-16 code units)`,
    );
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
  const pk = `${encodeKey(cluster)}|${encodeKey(eventKey)}`;
  if (pk.length > MAX_KEY_LENGTH)
    throw new KeyTooLongError(
      `too long to be a table key with its cluster once escaped (${pk.length} > ${MAX_KEY_LENGTH} UTF-16 code units)`,
    );
  return pk;
}

/**
 * Every table key a report would touch, checked before anything is read or written, so a name
 * too long to store is refused whole (400, naming the field) instead of failing half-way through
 * a commit. One line per offending field.
 */
export function reportKeyProblems(report: {
  cluster: string;
  vm: { name: string };
  document: { Events: { EventId: string; Resources: string[] }[] } | null;
  hooks: { eventId: string }[];
  approvals: { eventId: string }[];
}): string[] {
  const problems: string[] = [];
  const check = (path: string, make: () => string) => {
    try {
      make();
    } catch (e) {
      if (!(e instanceof KeyTooLongError)) throw e;
      problems.push(`${path}: ${e.message}`);
    }
  };
  check("vm.name", () => encodeKey(memberKey(report.vm.name)));
  const eventIds = (list: { eventId: string }[], path: string) =>
    list.forEach((x, i) => {
      check(`${path}.${i}.eventId`, () => eventPartition(report.cluster, eventKey(x.eventId)));
    });
  report.document?.Events.forEach((ev, i) => {
    check(`document.Events.${i}.EventId`, () =>
      eventPartition(report.cluster, eventKey(ev.EventId)),
    );
    ev.Resources.forEach((name, j) => {
      check(`document.Events.${i}.Resources.${j}`, () => encodeKey(memberKey(name)));
    });
  });
  eventIds(report.hooks, "hooks");
  eventIds(report.approvals, "approvals");
  return problems.slice(0, 10);
}

/**
 * Members are spread over MEMBER_BUCKETS partitions per cluster, `cluster|NN`, the bucket a hash
 * of the member key: a report's reads of its own row and of the VMs its events name land on a
 * few partitions of 64 instead of one per cluster, so no partition's load grows with a cluster's
 * size (docs/coordinator.md, "Scale limits"). Every lookup is by cluster and VM name, which give
 * the bucket; "every member of a cluster" is one range query over `cluster|` … `cluster}`.
 */
export const MEMBER_BUCKETS = 64;

/** FNV-1a over the key's UTF-16 code units: stable across releases and processes. */
export function memberBucket(mk: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < mk.length; i++) {
    h ^= mk.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h % MEMBER_BUCKETS).toString(16).padStart(2, "0");
}

export function memberPartition(cluster: string, mk: string): string {
  return `${encodeKey(cluster)}|${memberBucket(mk)}`;
}

/** Where releases before the buckets kept a cluster's members: one partition, `cluster`. */
export const legacyMemberPartition = (cluster: string): string => encodeKey(cluster);

/** The cluster a member row belongs to, from either partition scheme. */
export function clusterOfMemberPartition(pk: string): string {
  const bar = pk.indexOf("|");
  return decodeKey(bar < 0 ? pk : pk.slice(0, bar));
}

/** Whether a member row is in the partition releases before the buckets used. */
export const isLegacyMemberPartition = (pk: string): boolean => !pk.includes("|");
