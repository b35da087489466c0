import type { X509Certificate } from "node:crypto";
import { type Logger, parseJsonWith, silentLogger } from "@quiesce/protocol";
import { z } from "zod";
import type { HttpDispatcher } from "../net/undici";
import { type FetchDer, type FetchLimits, fetchCertificates, undiciFetchDer } from "./aiaFetch";
import { parseCertificates } from "./certificates";
import { AiaUnavailableError, type IntermediateSource } from "./verify";

/**
 * Intermediates for the chain check, as Azure's IMDS documentation does it: the leaf does not
 * carry its issuer, its Authority Information Access names where to download it ("CA
 * Issuers"). Bundled certificates first (no network for the regions we know), then each
 * caIssuers URL on an allowed host: the in-process memo, the shared cache (Table Storage in
 * Azure), else a bounded fetch, cached only once it parsed. A fetched certificate is only a
 * candidate: the chain check still needs it to have signed the child and to lead to a root.
 */

export interface AiaCache {
  get(url: string): Promise<Uint8Array | undefined>;
  put(url: string, der: Uint8Array): Promise<void>;
}

export interface AiaSourceOptions {
  /** Hosts AIA may be fetched from: "host" (default port) or "host:port", compared lowercase. */
  allowedHosts: readonly string[];
  /** Per attempt (default 5000). */
  timeoutMs?: number;
  /** Largest body read (default 32768; Microsoft's intermediates are ~2 kB). */
  maxBytes?: number;
  /** Attempts per URL (default 3), with backoff between. */
  attempts?: number;
  /** Wait before the second attempt, doubled after (default 250). */
  backoffMs?: number;
  /** Certificates shipped or configured (BUNDLED_INTERMEDIATES, operator PEM). */
  bundled: readonly X509Certificate[];
  cache: AiaCache;
  /** How to GET a URL; default undici over `dispatcher`. */
  fetchDer?: FetchDer;
  dispatcher?: HttpDispatcher;
  /** Fetches are news once per URL and instance; failures are what an operator looks for. */
  log?: Logger;
}

/** Parsed certificates by URL kept in process; a bound, since URLs come from documents. */
const MEMO_LIMIT = 256;

export function createAiaSource(opts: AiaSourceOptions): IntermediateSource {
  const hosts = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
  const allowed = (url: URL) =>
    (url.protocol === "http:" || url.protocol === "https:") && hosts.has(url.host.toLowerCase());
  const limits: FetchLimits = {
    timeoutMs: opts.timeoutMs ?? 5000,
    maxBytes: opts.maxBytes ?? 32_768,
    attempts: opts.attempts ?? 3,
    backoffMs: opts.backoffMs ?? 250,
  };
  const fetchDer =
    opts.fetchDer ??
    undiciFetchDer({
      maxBytes: limits.maxBytes,
      allowed,
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
  const log = opts.log ?? silentLogger;
  const memo = new Map<string, X509Certificate[]>();
  /** One fetch per URL at a time: concurrent verifications share it. */
  const inflight = new Map<string, Promise<X509Certificate[] | string>>();

  const remember = (url: string, certs: X509Certificate[]) => {
    if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
    memo.set(url, certs);
  };

  async function load(url: string): Promise<X509Certificate[] | string> {
    const known = memo.get(url);
    if (known) return known;
    // The cache is an optimisation: when it fails, fetch (and say so) rather than refuse.
    const cached = await opts.cache.get(url).catch((e: Error) => {
      log.warn("aia: cache read failed", { url, error: e.message });
      return undefined;
    });
    if (cached) {
      const parsed = parseCertificates(cached);
      if (parsed.ok) {
        remember(url, parsed.value);
        return parsed.value;
      }
      log.warn("aia: cached entry does not parse, fetching again", { url, error: parsed.error });
    }
    const fetched = await fetchCertificates(url, fetchDer, limits, (reason, attempt) =>
      log.info("aia: fetch failed, retrying", { url, attempt, reason }),
    );
    if (!fetched.ok) {
      log.warn("aia: fetch failed", { url, reason: fetched.reason });
      return fetched.reason;
    }
    remember(url, fetched.certs);
    await opts.cache.put(url, fetched.body).catch((e: Error) => {
      log.warn("aia: cache write failed", { url, error: e.message });
    });
    log.info("aia: fetched", {
      url,
      subjects: fetched.certs.map((c) => c.subject.replace(/\n/g, ", ")),
    });
    return fetched.certs;
  }

  const shared = (url: string) => {
    let p = inflight.get(url);
    if (!p) {
      p = load(url).finally(() => inflight.delete(url));
      inflight.set(url, p);
    }
    return p;
  };

  return {
    async issuersOf(cert) {
      const fromBundle = opts.bundled.filter((b) => b.subject === cert.issuer && signed(b, cert));
      if (fromBundle.length > 0) return fromBundle;

      const found: X509Certificate[] = [];
      const failures: string[] = [];
      for (const url of caIssuerUrls(cert)) {
        const parsed = URL.canParse(url) ? new URL(url) : undefined;
        if (!parsed || !allowed(parsed)) {
          log.warn("aia: URL skipped, host or scheme not allowed", { url: url.slice(0, 200) });
          continue;
        }
        const got = await shared(url);
        if (typeof got === "string") {
          failures.push(`${url}: ${got}`);
          continue;
        }
        const matching = got.filter((c) => c.subject === cert.issuer);
        if (matching.length === 0) {
          log.warn("aia: fetched certificate is not the issuer", { url, issuer: cert.issuer });
          continue;
        }
        found.push(...matching);
        // Azure lists the same certificate under two hosts: one that signed is enough.
        if (matching.some((c) => signed(c, cert))) break;
      }
      if (found.length === 0 && failures.length > 0)
        throw new AiaUnavailableError(
          `issuer of ${cert.subject.split("\n").join(", ").slice(0, 100)} could not be fetched: ${failures.join("; ").slice(0, 300)}`,
        );
      return found;
    },
  };
}

/** An in-memory AiaCache, for tests and local runs; `entries` shows what was stored. */
export function memoryAiaCache(): AiaCache & { readonly entries: Map<string, Uint8Array> } {
  const entries = new Map<string, Uint8Array>();
  return {
    entries,
    get: async (url) => entries.get(url),
    put: async (url, der) => {
      entries.set(url, der);
    },
  };
}

/**
 * The caIssuers URLs of a certificate's AIA. Node prints it as lines "CA Issuers - URI:<url>",
 * quoting (JSON) any value with characters that could be confused with that syntax.
 */
export function caIssuerUrls(cert: Pick<X509Certificate, "infoAccess">): string[] {
  const prefix = "CA Issuers - URI:";
  return (cert.infoAccess ?? "")
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length))
    .flatMap((value) => {
      if (!value.startsWith('"')) return [value];
      // Text that is not one JSON string names no URL we could read: none, rather than a guess.
      const unquoted = parseJsonWith(z.string(), value);
      return unquoted.ok ? [unquoted.value] : [];
    });
}

function signed(issuer: X509Certificate, child: X509Certificate): boolean {
  try {
    return child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}
