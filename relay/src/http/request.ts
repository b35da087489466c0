import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";

/**
 * The relay's one HTTP primitive, on node:http. Not undici: undici parses HTTP with a WebAssembly
 * build of llhttp, which alone costs the idle relay ~15-20 MB of resident memory (measured:
 * bench/results/relay-idle.md) against a 60 MB budget; node:http uses the native llhttp already
 * in the binary. Everything here is bounded: a deadline per request and a cap on the body read.
 */

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Whole-request deadline: connect, send, headers and body. */
  timeoutMs: number;
  signal?: AbortSignal;
  maxBodyBytes?: number;
  agents?: Agents;
}

export class HttpTimeoutError extends Error {
  constructor(ms: number) {
    super(`no complete answer within ${ms} ms`);
    this.name = "HttpTimeoutError";
  }
}

export interface Agents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

/** Keep-alive connections: one TCP connection to IMDS for the relay's whole life, not one per poll. */
export function keepAliveAgents(maxSockets = 2): Agents {
  const a = new http.Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 10_000 });
  const b = new https.Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 10_000 });
  return {
    http: a,
    https: b,
    destroy() {
      a.destroy();
      b.destroy();
    },
  };
}

const DEFAULT_MAX_BODY = 1024 * 1024;

export function httpRequest(r: HttpRequest): Promise<HttpResponse> {
  const url = new URL(r.url);
  const secure = url.protocol === "https:";
  const mod = secure ? https : http;
  const max = r.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const headers: Record<string, string> = { ...r.headers };
  if (r.body !== undefined) headers["content-length"] = String(Buffer.byteLength(r.body));
  return new Promise<HttpResponse>((resolve, reject) => {
    let done = false;
    const finish = (e: Error | undefined, res?: HttpResponse) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      r.signal?.removeEventListener("abort", onAbort);
      if (e) reject(e);
      else resolve(res as HttpResponse);
    };
    const req = mod.request(url, {
      method: r.method,
      headers,
      agent: r.agents ? (secure ? r.agents.https : r.agents.http) : undefined,
    });
    const timer = setTimeout(() => req.destroy(new HttpTimeoutError(r.timeoutMs)), r.timeoutMs);
    const onAbort = () => req.destroy(new Error("aborted"));
    r.signal?.addEventListener("abort", onAbort, { once: true });
    if (r.signal?.aborted) onAbort();
    req.on("error", (e) => finish(e));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > max) req.destroy(new Error(`answer larger than ${max} bytes`));
        else chunks.push(c);
      });
      res.on("error", (e) => finish(e));
      res.on("end", () =>
        finish(undefined, {
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.end(r.body);
  });
}
