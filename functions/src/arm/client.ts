import { randomUUID } from "node:crypto";
import {
  type Backoff,
  backoffMs,
  type Clock,
  delay,
  parseJsonWith,
  parseWith,
  type Result,
  systemClock,
} from "@quiesce/protocol";
import type { z } from "zod";
import type { HttpDispatcher } from "../net/undici";
import { createPooledAgent } from "./agent";
import { type ArmError, errorBody, excerpt } from "./armError";
import { retryAfterMs } from "./retryAfter";
import { type Exchange, send } from "./send";
import { type ArmCredential, tokenSource } from "./token";

/**
 * The coordinator's one way to Azure Resource Manager: a bearer token for the ARM audience,
 * retries where ARM says a retry can help, and every answer parsed by the caller's schema. It
 * decides nothing; the operations beside it map requests and answers, and the pipeline decides.
 */

export interface ArmRequest<T> {
  method: "GET" | "PUT" | "POST" | "PATCH" | "DELETE";
  /** `/subscriptions/…` or `/providers/…`, segments already percent-encoded; may carry a query (a nextLink's). */
  path: string;
  apiVersion: string;
  query?: Record<string, string>;
  body?: unknown;
  ifMatch?: string;
  /** Extra request headers (the Change Safety policy token: policyToken.ts). */
  headers?: Readonly<Record<string, string>>;
  schema: z.ZodType<T>;
  /** A short name for metrics and logs, e.g. "acknowledge". */
  operation: string;
}

export interface ArmResponse<T> {
  status: number;
  body: T;
  etag?: string;
  attempts: number;
  /** Resource Graph's throttling headers (lower-case names), when the answer carried them. */
  headers?: Record<string, string>;
}

/** The response headers a caller reads beyond the body: Resource Graph's quota (resourceGraph.ts). */
const PASSED_ON = ["x-ms-user-quota-remaining", "x-ms-user-quota-resets-after"];
function passedOn(x: Exchange): { headers?: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (const name of PASSED_ON) {
    const v = x.header(name);
    if (v !== undefined) headers[name] = v;
  }
  return Object.keys(headers).length > 0 ? { headers } : {};
}

/** What `onRequest` hears once per call, after its last attempt. */
export interface ArmRequestEvent {
  operation: string;
  /** The last answer's status, 0 when none came. */
  status: number;
  /** Set when the call failed. */
  code?: string;
  attempts: number;
  durationMs: number;
}

export interface ArmClientOptions {
  /**
   * The token audience (QUIESCE_ARM_AUDIENCE); the endpoint by default, which is what Azure
   * expects of each cloud's Resource Manager. Only a proxy in front of ARM needs it set.
   */
  audience?: string;
  /** QUIESCE_ARM_ENDPOINT; https://management.azure.com by default; sovereign clouds have their own. */
  endpoint?: string;
  credential: ArmCredential;
  /** Default: one pooled keep-alive Agent, closed by `close()`. */
  dispatcher?: HttpDispatcher;
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** HTTP requests per call, the first included. Default 4. */
  maxAttempts?: number;
  /** The most a call waits between its attempts, in total. Default 30 s. */
  maxRetryWaitMs?: number;
  /** Per attempt, headers and body. Default 15 s. */
  timeoutMs?: number;
  onRequest?: (e: ArmRequestEvent) => void;
}

export interface ArmClient {
  readonly endpoint: string;
  request<T>(req: ArmRequest<T>): Promise<Result<ArmResponse<T>, ArmError>>;
  /** Closes the Agent the client made (not a dispatcher it was given). */
  close(): Promise<void>;
}

export const DEFAULT_ARM_ENDPOINT = "https://management.azure.com";
/** Larger than any answer these operations expect (a backend pool of a few thousand addresses). */
export const MAX_ARM_BODY_BYTES = 4 * 1024 * 1024;

/** Between attempts when the server did not say how long: 1 s, 2 s, 4 s, 8 s, never at once. */
const BACKOFF: Backoff = { baseMs: 1_000, maxMs: 8_000, jitter: "equal" };

/**
 * Retried: 429 (throttled, or an RP's "RetryableErrorDueToAnotherOperation"), the 5xx a
 * gateway or a busy RP answers, and no answer at all. Not retried: 400/403/404/409/412 and every
 * other 4xx, which say the request itself is wrong or the resource is not in the state it
 * assumed, so sending it again cannot help; 401 gets one retry with a fresh token (below).
 */
const RETRIED = new Set([429, 500, 502, 503, 504]);

export function createArmClient(options: ArmClientOptions): ArmClient {
  const endpoint = (options.endpoint ?? DEFAULT_ARM_ENDPOINT).replace(/\/+$/, "");
  const origin = new URL(endpoint).origin;
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const random = options.random ?? Math.random;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const ownAgent = options.dispatcher ? undefined : createPooledAgent({ timeoutMs });
  const dispatcher = options.dispatcher ?? (ownAgent as HttpDispatcher);
  const audience = (options.audience ?? endpoint).replace(/\/+$/, "");
  const token = tokenSource(options.credential, `${audience}/.default`, clock);

  const urlOf = (req: ArmRequest<unknown>): URL | undefined => {
    // Only paths on the endpoint: a token for ARM must never be sent to another host (a
    // `//host/…` path or a nextLink pointing elsewhere).
    if (!req.path.startsWith("/") || req.path.startsWith("//")) return undefined;
    const url = new URL(`${endpoint}${req.path}`);
    if (url.origin !== origin) return undefined;
    // Our api-version wins over a nextLink's: the schema parsing the page is written for it.
    url.searchParams.set("api-version", req.apiVersion);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    return url;
  };

  async function attempt<T>(req: ArmRequest<T>): Promise<Result<ArmResponse<T>, ArmError>> {
    const url = urlOf(req);
    if (!url) return failure(0, "InvalidRequest", `${req.path} is not a path on ${endpoint}`, 0);
    // One id for every attempt of the call, so a support ticket can name the call.
    const clientRequestId = randomUUID();
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let attempts = 0;
    let waitedMs = 0;
    let refreshed = false;
    let fresh = false;
    for (;;) {
      let bearer: string | undefined;
      try {
        // After a 401, once: ask the credential again instead of reusing the held token.
        bearer = await token(fresh);
      } catch (e) {
        return failure(
          0,
          "CredentialUnavailable",
          `no ARM token: ${(e as Error).message}`,
          attempts,
        );
      }
      if (!bearer) return failure(0, "CredentialUnavailable", "no ARM token", attempts);
      fresh = false;
      attempts++;
      const sent = await send(
        dispatcher,
        url,
        {
          method: req.method,
          headers: {
            authorization: `Bearer ${bearer}`,
            accept: "application/json",
            "x-ms-client-request-id": clientRequestId,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(req.ifMatch ? { "if-match": req.ifMatch } : {}),
            ...req.headers,
          },
          ...(body === undefined ? {} : { body }),
        },
        { timeoutMs, maxBytes: MAX_ARM_BODY_BYTES },
      );
      let error: ArmError;
      if (!sent.ok) {
        error =
          sent.error.kind === "timeout"
            ? armError(0, "Timeout", `no answer within ${timeoutMs} ms`, attempts)
            : armError(0, "NetworkError", sent.error.message, attempts);
      } else {
        const x = sent.value;
        const requestId = x.header("x-ms-request-id");
        if (x.truncated) {
          const tooLarge = `answer larger than ${MAX_ARM_BODY_BYTES} bytes`;
          return failure(x.status, "InvalidResponse", tooLarge, attempts, requestId);
        }
        if (x.status >= 200 && x.status < 300) return parse(req, x, attempts, requestId);
        const { code, message } = errorBody(x.status, x.text);
        error = { ...armError(x.status, code, message, attempts, requestId), ...passedOn(x) };
        const after = retryAfterMs(x.header, clock.now());
        if (after !== undefined) error.retryAfterMs = after;
        if (x.status === 401 && !refreshed && attempts < maxAttempts) {
          refreshed = true;
          fresh = true;
          continue;
        }
        if (!RETRIED.has(x.status)) return { ok: false, error };
      }
      if (attempts >= maxAttempts) return { ok: false, error };
      const left = maxRetryWaitMs - waitedMs;
      // The server asked for longer than this call may wait: hand its wait to the caller, who
      // can schedule the retry (a sweep, the next report) instead of holding an invocation.
      if (error.retryAfterMs !== undefined && error.retryAfterMs > left)
        return { ok: false, error };
      if (error.retryAfterMs === undefined && left <= 0) return { ok: false, error };
      const waitMs = error.retryAfterMs ?? Math.min(left, backoffMs(attempts, BACKOFF, random()));
      await sleep(waitMs);
      waitedMs += waitMs;
    }
  }

  function parse<T>(
    req: ArmRequest<T>,
    x: Exchange,
    attempts: number,
    requestId: string | undefined,
  ): Result<ArmResponse<T>, ArmError> {
    // An empty body (204, or a bare 200 from some RPs) reaches the schema as undefined.
    const body =
      x.text.trim() === "" ? parseWith(req.schema, undefined) : parseJsonWith(req.schema, x.text);
    if (!body.ok) {
      const problem = `${req.operation}: ${excerpt(body.error)}`;
      return failure(x.status, "InvalidResponse", problem, attempts, requestId);
    }
    const etag = x.header("etag");
    return {
      ok: true,
      value: {
        status: x.status,
        body: body.value,
        attempts,
        ...(etag ? { etag } : {}),
        ...passedOn(x),
      },
    };
  }

  return {
    endpoint,
    async request(req) {
      const t0 = clock.now();
      const result = await attempt(req);
      const last = result.ok ? result.value : result.error;
      options.onRequest?.({
        operation: req.operation,
        status: last.status,
        ...(result.ok ? {} : { code: result.error.code }),
        attempts: last.attempts,
        durationMs: clock.now() - t0,
      });
      return result;
    },
    async close() {
      await ownAgent?.close();
    },
  };
}

function failure<T>(
  status: number,
  code: string,
  message: string,
  attempts: number,
  requestId?: string,
): Result<T, ArmError> {
  return { ok: false, error: armError(status, code, message, attempts, requestId) };
}

function armError(
  status: number,
  code: string,
  message: string,
  attempts: number,
  requestId?: string,
): ArmError {
  return { status, code, message, attempts, ...(requestId ? { requestId } : {}) };
}
