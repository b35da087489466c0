import {
  createHttpHeaders,
  type HttpClient,
  type PipelineRequest,
  type PipelineResponse,
  RestError,
} from "@azure/core-rest-pipeline";
import { pooledAgent, request as send } from "../net/undici";

/**
 * The HTTP client of point reads (pointRead.ts): undici's, not node:http's. Per request, the
 * SDK's node:http client builds a ClientRequest, an AbortController, response streams and their
 * events, about a quarter of a report's CPU during an event at 6.6 reads per report (bench (d));
 * undici's dispatcher does the same work with a fraction of the allocations. Only a plain GET
 * goes this way; anything else the SDK may set on a request (a body, a proxy or custom agent, TLS
 * settings, a timeout, streamed or progress-reported responses) goes to `fallback`, the SDK's
 * client, unchanged. Failures look like the SDK client's: a RestError with the socket's code, so
 * the pipeline's retry policy retries what it retried before.
 */
export function readHttpClient(fallback: HttpClient): HttpClient {
  // undici loads on the first read (net/undici.ts): not while the host loads app.js.
  const dispatcher = pooledAgent({ keepAliveTimeout: 30_000 });
  return {
    async sendRequest(request: PipelineRequest): Promise<PipelineResponse> {
      if (!plainGet(request)) return fallback.sendRequest(request);
      // As node:http's client: an aborted request is not sent (undici would still connect).
      if (request.abortSignal?.aborted) throw abortError();
      if (request.url.startsWith("http:") && !request.allowInsecureConnection)
        throw new Error(`Cannot connect to ${request.url} while allowInsecureConnection is false.`);
      try {
        const res = await send(request.url, {
          method: "GET",
          headers: request.headers.toJSON({ preserveCase: true }),
          dispatcher,
          ...(request.abortSignal ? { signal: request.abortSignal } : {}),
          // node:http's client has no timeout of its own either (request.timeout 0).
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        const bodyAsText = await res.body.text();
        const headers = createHttpHeaders();
        for (const [k, v] of Object.entries(res.headers))
          if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
        return { request, status: res.statusCode, headers, bodyAsText };
      } catch (e) {
        throw sendError(e, request);
      }
    },
  };
}

function abortError(): Error {
  const e = new Error("The operation was aborted. Request has already been canceled.");
  e.name = "AbortError";
  return e;
}

function plainGet(r: PipelineRequest): boolean {
  return (
    r.method === "GET" &&
    r.body === undefined &&
    r.multipartBody === undefined &&
    r.formData === undefined &&
    r.agent === undefined &&
    r.proxySettings === undefined &&
    r.tlsSettings === undefined &&
    r.requestOverrides === undefined &&
    !r.timeout &&
    !r.streamResponseStatusCodes?.size &&
    r.onDownloadProgress === undefined &&
    r.onUploadProgress === undefined
  );
}

/**
 * An abort stays an AbortError (the pipeline gives up); a socket failure becomes the RestError
 * node:http's client throws, with the code its retry policy looks for: undici reports a peer
 * that closed a kept-alive connection as UND_ERR_SOCKET where node:http says ECONNRESET.
 */
function sendError(e: unknown, request: PipelineRequest): unknown {
  if (!(e instanceof Error) || e.name === "AbortError") return e;
  const code = (e as { code?: string }).code;
  return new RestError(e.message, {
    code: code === "UND_ERR_SOCKET" ? "ECONNRESET" : (code ?? RestError.REQUEST_SEND_ERROR),
    request,
  });
}
