/**
 * The rule "secrets never leave" (docs/security.md): every text that reaches a log line, an error
 * detail, the status API, history, a notification or the status page passes through `redact` at
 * the boundary where it leaves. Two nets: the secret values this process knows (registered at
 * start-up from its settings, and as it reads rotated tokens), replaced wherever they appear; and
 * the shapes secrets take in text it did not write (an upstream error, a hook's output line, a
 * response body), replaced by pattern. Here, in protocol/, so the relay and the coordinator apply
 * the one same rule.
 */

export const REDACTED = "[REDACTED]";

/** Shorter values are not taken as secrets: replacing them would mangle ordinary words. */
const MIN_SECRET_LENGTH = 8;
/** Parts of a secret URL (a path segment, a query value) are secrets from this length on. */
const MIN_URL_PART_LENGTH = 16;

/** Known values by who registered them: a rotated token replaces its own slot, nothing else. */
const slots = new Map<string, readonly string[]>();
/** Every known value and its encodings, longest first (a value containing another goes first). */
let known: readonly string[] = [];

function rebuild(): void {
  const all = new Set<string>();
  for (const values of slots.values()) for (const v of values) all.add(v);
  known = [...all].sort((a, b) => b.length - a.length);
}

/** A value as it may appear in text: as is, percent-encoded, JSON-escaped. */
function encodings(value: string): string[] {
  const out = [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];
  return out.filter((v) => v.length >= MIN_SECRET_LENGTH);
}

/**
 * The parts of a secret that may be shown on their own: the whole value; for a URL (a webhook
 * whose path or query is its key) also its path and query, each long path segment and query
 * value, and a password in it; for a connection string its AccountKey / SharedAccessSignature.
 */
export function secretParts(value: string): string[] {
  const v = value.trim();
  if (v.length < MIN_SECRET_LENGTH) return [];
  const parts = [v];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) && URL.canParse(v)) {
    const u = new URL(v);
    parts.push(`${u.pathname}${u.search}`, u.search.slice(1));
    if (u.password) parts.push(decodeURIComponent(u.password));
    for (const seg of u.pathname.split("/")) parts.push(safeDecode(seg));
    for (const [, q] of u.searchParams) parts.push(q);
  }
  for (const m of v.matchAll(/(?:AccountKey|SharedAccessKey|SharedAccessSignature)=([^;]+)/gi))
    parts.push(m[1] as string);
  const long = parts.filter((p, i) => i === 0 || p.length >= MIN_URL_PART_LENGTH);
  return [...new Set(long.flatMap(encodings))];
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * Registers the secret values of one source, replacing what that source registered before
 * (addSecrets and rememberSecret are the two ways in; tests use it directly).
 */
export function registerSecrets(source: string, values: readonly (string | undefined)[]): void {
  slots.set(
    source,
    values.flatMap((v) => (v ? secretParts(v) : [])),
  );
  rebuild();
}

/** Settings' secrets: slots of their own (the NUL keeps them apart from any source's name). */
const SETTINGS = "\0settings";
let permanent = 0;

/**
 * Adds the secret values of a component's settings at its start-up (a key, a connection string,
 * a webhook URL): known from then on, next to those of any other component in the process.
 */
export function addSecrets(values: readonly (string | undefined)[]): void {
  const given = values.filter((v): v is string => !!v);
  const already = new Set(
    [...slots.entries()].filter(([k]) => k.startsWith(SETTINGS)).flatMap(([, v]) => v),
  );
  const fresh = given.filter((v) => !secretParts(v).every((p) => already.has(p)));
  if (fresh.length > 0) registerSecrets(`${SETTINGS} ${permanent++}`, fresh);
}

/** Raw values by source, for rememberSecret (slots hold their derived parts). */
const remembered = new Map<string, readonly string[]>();

/**
 * Adds a value a source just obtained (a token read from a file or issued by a credential) and
 * keeps the last `keep` of that source: a rotated token's predecessor may still appear in a late
 * error, and a long-running process must not accumulate every token it ever held.
 */
export function rememberSecret(source: string, value: string, keep = 2): void {
  const before = remembered.get(source) ?? [];
  if (before[0] === value) return;
  const values = [value, ...before.filter((v) => v !== value)].slice(0, keep);
  remembered.set(source, values);
  registerSecrets(source, values);
}

/** Tests: forget every registered value. */
export function clearSecrets(): void {
  slots.clear();
  permanent = 0;
  remembered.clear();
  rebuild();
}

/**
 * Shapes of secrets in text Quiesce did not write, each with what stays of the match (the name,
 * so the text still says what was there). Built for the texts that reach operators: errors,
 * hook output, response bodies, URLs.
 */
const PATTERNS: readonly [RegExp, string][] = [
  // A PEM private key, whole.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  // An Authorization header's credentials, however it is quoted.
  [
    /\b(Bearer|Basic|Digest|SharedKey|SharedKeyLite|SharedAccessSignature)(\s+)[^\s"',;]+/gi,
    `$1$2${REDACTED}`,
  ],
  // A JWT (Entra, Kubernetes service-account and projected tokens): header.payload.signature.
  [/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, REDACTED],
  // Connection strings (Storage, Service Bus, Event Hubs, SQL): the key, the SAS, a password.
  [
    /\b(AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)(\s*=\s*)("[^"]*"|[^;\s"']+)/gi,
    `$1$2${REDACTED}`,
  ],
  // URL query keys: a SAS signature, a Functions key, tokens and API keys.
  [
    /([?&](?:sig|code|token|access_token|id_token|refresh_token|client_secret|api[-_]?key|apikey|key|secret|password|signature|skn|sas)=)[^&\s"'#<>]+/gi,
    `$1${REDACTED}`,
  ],
  // Header-style API keys.
  [
    /\b(x-functions-key|x-api-key|api-key|ocp-apim-subscription-key)(["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
    `$1$2${REDACTED}`,
  ],
  // Incoming-webhook URLs whose path is the key: Slack, Office 365 connectors.
  [/(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[^\s"'<>)]+/gi, `$1${REDACTED}`],
  [/(\.webhook\.office\.com\/webhook(?:b2)?\/)[^\s"'<>)]+/gi, `$1${REDACTED}`],
  // A password in a URL (scheme://user:password@host).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:"']+:)[^\s/@"']+@/gi, `$1${REDACTED}@`],
];

/**
 * What every pattern above needs somewhere in the text: one cheap test, so the status API can
 * redact every string of a large cluster's answer (most hold none of these) at little cost.
 */
const MAY_MATCH =
  /bearer|basic|digest|sharedkey|sharedaccess|eyJ|accountkey|password|pwd|[?&][\w-]+=|api-key|functions-key|subscription-key|hooks\.slack|webhook\.office|:\/\/[^\s/@]+@|PRIVATE KEY/i;

/** `text` with every known secret value and every secret-shaped part replaced by REDACTED. */
export function redact(text: string, knownSecrets: readonly string[] = known): string {
  let out = text;
  for (const secret of knownSecrets)
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  if (!MAY_MATCH.test(out)) return out;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** Every string in a JSON-like value redacted (keys too: a key may be outside text). */
export function redactDeep<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value === null || typeof value !== "object") return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = proto === null ? Object.create(null) : {};
  for (const [k, v] of Object.entries(value)) out[redact(k)] = walk(v);
  return out;
}
