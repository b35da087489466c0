import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { invocationLogger } from "../log";
import { isStorageUnavailable, KeyTooLongError, RetriesExhausted } from "../store";
import { problem } from "./http";

type HttpHandler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

/**
 * One mapping of state-store failures for every route, so a relay, the CLI and the page all see
 * the same answer: a lost race or an unreachable/throttled store is a 503 with Retry-After (the
 * caller's retry will pass), a name too long to be a table key is the caller's 400. Anything
 * else is a bug and stays a 500.
 */
export function withStoreErrors(route: string, handler: HttpHandler): HttpHandler {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (e) {
      if (e instanceof RetriesExhausted) {
        invocationLogger(context, { route }).warn(e.message);
        return problem(503, e.message, { "retry-after": "1" });
      }
      if (e instanceof KeyTooLongError) return problem(400, `invalid request: ${e.message}`);
      if (isStorageUnavailable(e)) {
        invocationLogger(context, { route }).error("state store unavailable", { error: e });
        return problem(503, "state store unavailable; retry shortly", { "retry-after": "5" });
      }
      throw e;
    }
  };
}
