import type { Result } from "@quiesce/protocol";
import type { Dispatcher } from "undici";
import { type HttpDispatcher, request } from "../net/undici";

/**
 * One HTTP exchange with a deadline that covers the headers and the body, and a cap on what is
 * read: the one place the ARM client and the HTTP probe touch the network. Never throws.
 */

export interface Exchange {
  status: number;
  header(name: string): string | undefined;
  text: string;
  /** The body went past `maxBytes`; `text` holds the first `maxBytes` only. */
  truncated: boolean;
}

export type SendFailure = { kind: "timeout" } | { kind: "network"; message: string };

export async function send(
  dispatcher: HttpDispatcher,
  url: URL,
  init: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: string },
  limits: { timeoutMs: number; maxBytes: number },
): Promise<Result<Exchange, SendFailure>> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.timeoutMs);
  try {
    const res = await request(url, {
      method: init.method,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
      dispatcher,
      signal: deadline.signal,
    });
    const { text, truncated } = await readCapped(res.body, limits.maxBytes);
    const headers = res.headers;
    return {
      ok: true,
      value: {
        status: res.statusCode,
        header: (name) => {
          const v = headers[name.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        text,
        truncated,
      },
    };
  } catch (e) {
    if (deadline.signal.aborted) return { ok: false, error: { kind: "timeout" } };
    const err = e as Error & { code?: string; cause?: { code?: string } };
    const code = err.code ?? err.cause?.code;
    return {
      ok: false,
      error: { kind: "network", message: code ? `${code}: ${err.message}` : err.message },
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Reads up to `maxBytes` and drops the rest (a hostile or broken server cannot fill memory). */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      body.destroy();
      return { text: Buffer.concat(chunks).toString("utf8"), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: false };
}
