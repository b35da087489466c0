import type { X509Certificate } from "node:crypto";
import { delay } from "@quiesce/protocol";
import { type HttpDispatcher, request } from "../net/undici";
import { parseCertificates } from "./certificates";

/**
 * One AIA URL fetched: bounded in time (per attempt) and size (while reading), retried when the
 * failure may pass (5xx, network, timeout) and not when it will not (404, other 4xx, a body
 * that is not a certificate or too large). Never throws; says why it failed.
 */

export type FetchDer = (
  url: string,
  signal: AbortSignal,
) => Promise<{ status: number; body: Uint8Array }>;

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  attempts: number;
  /** Wait before the second attempt; doubled for each one after. */
  backoffMs: number;
}

export type Fetched =
  | { ok: true; body: Uint8Array; certs: X509Certificate[] }
  | { ok: false; reason: string };

/** A failure no retry can mend (the default fetcher's "too large", a refused redirect). */
export class PermanentFetchError extends Error {}

type Attempt = Fetched | { ok: false; reason: string; retry: true };

export async function fetchCertificates(
  url: string,
  fetchDer: FetchDer,
  limits: FetchLimits,
  onRetry?: (reason: string, attempt: number) => void,
): Promise<Fetched> {
  let last: Attempt = { ok: false, reason: "not attempted" };
  for (let attempt = 1; attempt <= Math.max(1, limits.attempts); attempt++) {
    if (attempt > 1) await delay(limits.backoffMs * 2 ** (attempt - 2));
    last = await once(url, fetchDer, limits);
    if (last.ok || !("retry" in last)) return last;
    if (attempt < limits.attempts) onRetry?.(last.reason, attempt);
  }
  return { ok: false, reason: `${last.ok ? "" : last.reason} (after ${limits.attempts} attempts)` };
}

async function once(url: string, fetchDer: FetchDer, limits: FetchLimits): Promise<Attempt> {
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // Raced as well as signalled: a fetcher that ignores the signal still ends on time.
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.abort();
      reject(new Error("timeout"));
    }, limits.timeoutMs);
  });
  try {
    const { status, body } = await Promise.race([fetchDer(url, deadline.signal), timedOut]);
    if (status >= 500) return { ok: false, retry: true, reason: `HTTP ${status}` };
    if (status !== 200) return { ok: false, reason: `HTTP ${status}` };
    if (body.byteLength > limits.maxBytes)
      return { ok: false, reason: `larger than ${limits.maxBytes} bytes` };
    const certs = parseCertificates(body);
    return certs.ok ? { ok: true, body, certs: certs.value } : { ok: false, reason: certs.error };
  } catch (e) {
    if (deadline.signal.aborted)
      return { ok: false, retry: true, reason: `timed out after ${limits.timeoutMs} ms` };
    if (e instanceof PermanentFetchError) return { ok: false, reason: e.message };
    const err = e as Error & { code?: string; cause?: { code?: string } };
    const code = err.code ?? err.cause?.code;
    return { ok: false, retry: true, reason: code ? `${code}: ${err.message}` : err.message };
  } finally {
    clearTimeout(timer);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

/**
 * The default fetcher: a GET with undici over `dispatcher` (the coordinator's pooled agent; the
 * global one when absent), following at most 3 redirects and only to URLs `allowed` accepts,
 * reading at most `maxBytes`.
 */
export function undiciFetchDer(opts: {
  dispatcher?: HttpDispatcher;
  maxBytes: number;
  allowed: (url: URL) => boolean;
}): FetchDer {
  return async (url, signal) => {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      const res = await request(current, {
        method: "GET",
        signal,
        headers: { accept: "application/pkix-cert, application/x-x509-ca-cert, */*" },
        ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
      });
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === "string") {
        await res.body.dump();
        const next = URL.canParse(location, current.href) ? new URL(location, current) : undefined;
        if (!next || !opts.allowed(next))
          throw new PermanentFetchError(`redirected to ${location.slice(0, 100)}, not allowed`);
        if (hop >= MAX_REDIRECTS) throw new PermanentFetchError("too many redirects");
        current = next;
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
        return { status: res.statusCode, body: new Uint8Array() };
      }
      return { status: 200, body: await readCapped(res.body, opts.maxBytes) };
    }
  };
}

/** Stops reading (and drops the connection) once past `maxBytes`: a hostile server cannot fill memory. */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  maxBytes: number,
): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new PermanentFetchError(`larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
