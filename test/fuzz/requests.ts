import fc from "fast-check";

/**
 * What an attacker, a buggy relay or a careless operator can send: reports, operator bodies,
 * paths, query strings and headers, with names drawn from a pool of the odd but legal (prototype
 * names, non-BMP, Table Storage's forbidden characters, names at and past the length limits) and
 * the plainly wrong (wrong types, missing or extra fields, truncated JSON, other keys).
 */

export const NAME_POOL = [
  "web-0",
  "web-1",
  "web-2",
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "CONSTRUCTOR",
  "a/b",
  "c\\d",
  "e#f",
  "g?h",
  "it's",
  "' or PartitionKey ne '",
  "%41",
  "𝒱𝓂-🙂",
  "名前",
  "a".repeat(256),
  "#".repeat(256),
  "🙂".repeat(128),
  "\udc00".repeat(128),
  "x".repeat(257),
  "",
  "tab\there",
  "nul\u0000",
] as const;

const poolName = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NAME_POOL) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 24 }) },
);
/** Mostly names a cluster could use, so accepted reports build up real state. */
const vmName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("web-0", "web-1", "web-2", "constructor", "__proto__") },
  { weight: 2, arbitrary: poolName },
);
const eventId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("E-1", "E-2", "constructor", "__proto__", "toString") },
  { weight: 2, arbitrary: poolName },
);
const cluster = fc.oneof(
  { weight: 6, arbitrary: fc.constant("web") },
  { weight: 1, arbitrary: poolName },
);
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  poolName,
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom("a", "__proto__", "constructor"), fc.integer(), { maxKeys: 2 }),
);

const hookRun = fc.record({
  status: fc.constantFrom("running", "succeeded", "failed", "interrupted"),
  attempt: fc.integer({ min: 1, max: 3 }),
  startedAt: fc.constant("2026-11-23T05:00:00.000Z"),
});

const scheduledEvent = fc.record({
  EventId: eventId,
  EventType: fc.constantFrom("Freeze", "Reboot", "Redeploy", "Preempt", "Terminate", "Unknown"),
  ResourceType: fc.constant("VirtualMachine"),
  Resources: fc.array(vmName, { maxLength: 4 }),
  EventStatus: fc.constantFrom("Scheduled", "Started"),
  NotBefore: fc.constantFrom("Mon, 23 Nov 2026 06:00:00 GMT", "", "2026-11-23T06:00:00Z", "soon"),
  EventSource: fc.constantFrom("Platform", "User"),
  DurationInSeconds: fc.integer({ min: -1, max: 600 }),
});

export const report = fc.record({
  protocol: fc.constantFrom("1.0", "1.0", "1.3", "2.0", "x"),
  cluster,
  vm: fc.record({ name: vmName, vmId: fc.constant("vm-id"), resourceId: fc.constant("/r") }),
  relay: fc.record({ version: fc.constant("fuzz"), bootId: fc.constant("b"), seq: fc.nat() }),
  document: fc.option(
    fc.record({
      DocumentIncarnation: fc.integer({ min: 0, max: 6 }),
      Events: fc.array(scheduledEvent, { maxLength: 3 }),
    }),
    { freq: 6 },
  ),
  hooks: fc.array(
    fc.record(
      { eventId, drain: hookRun, recover: fc.option(hookRun, { nil: undefined }) },
      {
        requiredKeys: ["eventId"],
      },
    ),
    { maxLength: 2 },
  ),
  approvals: fc.array(
    fc.record({
      eventId,
      outcome: fc.constantFrom("accepted", "rejected", "failed", "skipped"),
      at: fc.constant("2026-11-23T05:00:01.000Z"),
    }),
    { maxLength: 1 },
  ),
  sentAt: fc.constant("2026-11-23T05:00:00.000Z"),
});

/** A path into the value and what to put there (undefined deletes it). */
const mutation = fc.record({
  path: fc.array(
    fc.constantFrom("vm", "name", "document", "Events", "0", "Resources", "hooks", "relay", "x"),
    { minLength: 1, maxLength: 4 },
  ),
  value: fc.option(junk, { nil: undefined }),
});

function mutate(value: unknown, m: { path: string[]; value: unknown }): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  for (const key of m.path.slice(0, -1)) {
    const next = at[key];
    if (typeof next !== "object" || next === null) return copy;
    at = next as Record<string, unknown>;
  }
  const last = m.path[m.path.length - 1] as string;
  if (m.value === undefined) delete at[last];
  else Object.defineProperty(at, last, { value: m.value, enumerable: true, writable: true });
  return copy;
}

/** A body as text: mostly JSON of a (possibly mutated) value, sometimes not JSON at all. */
const bodyText = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: value.map((v) => JSON.stringify(v)) },
    {
      weight: 4,
      arbitrary: fc.tuple(value, mutation).map(([v, m]) => JSON.stringify(mutate(v, m)) ?? ""),
    },
    {
      weight: 1,
      arbitrary: value.chain((v) => {
        const text = JSON.stringify(v);
        return fc.integer({ min: 0, max: text.length }).map((n) => text.slice(0, n));
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom("", "null", "[]", "{", '"x"', "[".repeat(5000)) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 64 }) },
  );

/** "right" is the key the route wants (relay for reports, operator otherwise). */
export type Credential = "right" | "relay" | "operator" | "none" | "wrong" | "basic";
const credential = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Credential>("right") },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Credential>("relay", "operator", "none", "wrong", "basic"),
  },
);

const operatorBody = fc.record(
  {
    cluster,
    reason: fc.oneof(fc.constant("maintenance window"), poolName, fc.constant("")),
    ttlMinutes: fc.oneof(fc.integer({ min: -5, max: 2000 }), junk),
  },
  { requiredKeys: [] },
);

const seg = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return s; // a lone surrogate cannot be encoded: send it raw, as a client might
  }
};

export interface FuzzRequest {
  method: string;
  path: string;
  credential: Credential;
  body?: string;
}

export const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      method: fc.constant("POST"),
      path: fc.constant("/api/relay/report"),
      credential,
      body: bodyText(report),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.option(cluster), credential).map(([c, cred]) => ({
      method: "GET",
      path: c === null ? "/api/status" : `/api/status?cluster=${seg(c)}`,
      credential: cred,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(cluster, credential).map(([c, cred]) => ({
      method: "GET",
      path: `/api/clusters/${seg(c)}`,
      credential: cred,
    })),
  },
  {
    // The status pages' parameters: bounds, lists, enums and tokens, valid and not.
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("/api/status", "/api/clusters/web"),
        fc.uniqueArray(
          fc.tuple(
            fc.constantFrom("limit", "state", "phase", "continuation", "cluster"),
            fc.oneof(
              fc.constantFrom("0", "1", "500", "501", "2000", "-1", "1e3", "", "all", "ended"),
              fc.constantFrom("Draining,Ready", "Draining,,", "constructor", "__proto__"),
              fc.json().map((j) => Buffer.from(j).toString("base64url")),
              fc.string({ unit: "binary", maxLength: 40 }),
            ),
          ),
          { selector: ([k]) => k, maxLength: 5 },
        ),
        credential,
      )
      .map(([path, params, cred]) => ({
        method: "GET",
        path: `${path}?${params.map(([k, v]) => `${k}=${seg(v)}`).join("&")}`,
        credential: cred,
      })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(eventId, fc.option(cluster), credential).map(([id, c, cred]) => ({
      method: "GET",
      path: `/api/events/${seg(id)}${c === null ? "" : `?cluster=${seg(c)}`}`,
      credential: cred,
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        eventId,
        fc.constantFrom("hold", "release", "force-approve", "approve"),
        fc.option(cluster),
        credential,
        bodyText(operatorBody),
      )
      .map(([id, action, c, cred, body]) => ({
        method: "POST",
        path: `/api/events/${seg(id)}/${action}${c === null ? "" : `?cluster=${seg(c)}`}`,
        credential: cred,
        body,
      })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "POST"),
      path: fc.oneof(
        fc.constantFrom("/api/status/x", "/api/relay", "/api/events", "/api/%E0%A4%A", "/"),
        fc.string({ maxLength: 30 }).map((s) => `/api/${s}`),
      ),
      credential,
    }),
  },
);
