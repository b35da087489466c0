import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { parseWith, type Result } from "@quiesce/protocol";
import type { z } from "zod";
import type { Principal, Role } from "../auth";
import { authenticate, denied, type HandlerDeps } from "./deps";
import { parseJson, problem, readBody } from "./http";

/** What every HTTP handler is: a plain async function, callable with a real HttpRequest. */
export type Handler = (
  request: HttpRequest,
  context: InvocationContext,
) => Promise<HttpResponseInit>;

/** A handler that runs only for an authenticated caller holding the role. */
export type AuthedHandler = (
  request: HttpRequest,
  context: InvocationContext,
  principal: Principal,
) => Promise<HttpResponseInit>;

/**
 * Authentication in front of a handler, as one layer: 401 (with WWW-Authenticate), 403 naming
 * the role, or 503 when the signing keys cannot be reached are answered here, so the handler
 * below only ever sees a principal.
 */
export function withAuth(deps: HandlerDeps, role: Role, handler: AuthedHandler): Handler {
  return async (request, context) => {
    const auth = await authenticate(deps, request.headers.get("authorization"), role, context);
    if (!auth.ok) return denied(auth.error);
    return handler(request, context, auth.value);
  };
}

/**
 * The request body, bounded (413), UTF-8 (400), JSON (400) and parsed (400 naming the field,
 * prefixed with `what`): one step instead of four in every handler that takes a body.
 */
export async function jsonBody<T>(
  request: HttpRequest,
  limit: number,
  parse: (value: unknown) => Result<T>,
  what: string,
  limitName?: string,
): Promise<Result<T, HttpResponseInit>> {
  const body = await readBody(request, limit, limitName);
  if (!body.ok) return body;
  const json = parseJson(body.value);
  if (!json.ok) return json;
  const parsed = parse(json.value);
  if (!parsed.ok) return { ok: false, error: problem(400, `invalid ${what}: ${parsed.error}`) };
  return { ok: true, value: parsed.value };
}

/** A schema as jsonBody's parser: its complaint names the field. */
export function parsedBy<S extends z.ZodType>(schema: S): (value: unknown) => Result<z.output<S>> {
  return (value) => parseWith(schema, value);
}
