import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { redact, redactDeep } from "@quiesce/protocol";

type Handler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

const LOG_METHODS = ["log", "trace", "debug", "info", "warn", "error"] as const;

/**
 * The invocation's logger, redacted (docs/security.md, "Secrets never leave"): whatever a handler
 * or the sweep logs (a store error, an ARM or sink failure, a relay's hook detail) goes through
 * @quiesce/protocol's redact before it reaches the Functions host's log.
 */
export function redactingContext(context: InvocationContext): InvocationContext {
  const out = Object.create(context) as InvocationContext;
  for (const m of LOG_METHODS) {
    const original = context[m].bind(context);
    out[m] = (...args: unknown[]) =>
      original(...args.map((a) => (typeof a === "string" ? redact(a) : redactDeep(a))));
  }
  return out;
}

/**
 * Every answer's JSON redacted on its way out, and the handler's logging too: the status API and
 * the page read what relays, hooks, gates and Azure wrote, and a secret in any of it (an older
 * relay's detail, a row stored before this rule) stops here. `answer: false` for the answers
 * that must carry a token as is (a relay's binding token, Event Grid's validation code).
 */
export function redacting(handler: Handler, o: { answer: boolean } = { answer: true }): Handler {
  return async (request, context) => {
    const response = await handler(request, redactingContext(context));
    return response.jsonBody === undefined || !o.answer
      ? response
      : { ...response, jsonBody: redactDeep(response.jsonBody) };
  };
}
