import { z } from "zod";

/**
 * What a failed ARM call says, whatever failed: `status` is the HTTP status (0 when no answer
 * came), `code` ARM's `error.code` when it sent one (`AuthorizationFailed`, `ResourceNotFound`,
 * `Conflict`, ...) or one of ours: `NetworkError`, `Timeout`, `InvalidResponse` (an answer that
 * does not parse, or is too large), `CredentialUnavailable` (no token), `HttpError<status>` (an
 * error answer without ARM's error body), `InvalidRequest` (a path off the endpoint),
 * `InvalidResourceId`, `BackendAddressNotFound`.
 */
export interface ArmError {
  status: number;
  code: string;
  message: string;
  /** How many HTTP requests the call made (0 when it failed before sending one). */
  attempts: number;
  /** When the server asked for more time than the call had left: retry no sooner than this. */
  retryAfterMs?: number;
  /** ARM's `x-ms-request-id`, for a support ticket. */
  requestId?: string;
  /** Resource Graph's throttling headers (lower-case names), when the answer carried them. */
  headers?: Record<string, string>;
}

// ARM's common error shape is {"error":{"code","message"}}; some resource providers answer
// with the code and message at the top level instead, and the Maintenance RP with Pascal-case
// names ({"Error":{"Code","Message","Details"}}: Approve-AzScheduledEvent's help, the Azure CLI's
// acknowledge tests), so names are read without regard to case.
const Detail = z.looseObject({
  target: z.string().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
});
const Wrapped = z.object({
  error: z.looseObject({
    code: z.string(),
    message: z.string().optional(),
    details: z.array(Detail).optional(),
  }),
});
const TopLevel = z.looseObject({ code: z.string(), message: z.string().optional() });

/** An error body's code, message and per-item details (the multi-status answers carry them). */
export interface ErrorEnvelope {
  code: string;
  message: string;
  details: Array<{ target?: string; code?: string; message?: string }>;
}

/** The error an answer's body carries, whatever its status; undefined when it carries none. */
export function errorEnvelope(json: unknown): ErrorEnvelope | undefined {
  const lowered = lowerKeys(json, 3);
  const wrapped = Wrapped.safeParse(lowered);
  if (wrapped.success) {
    const e = wrapped.data.error;
    return { code: e.code, message: e.message ?? "", details: e.details ?? [] };
  }
  const top = TopLevel.safeParse(lowered);
  return top.success
    ? { code: top.data.code, message: top.data.message ?? "", details: [] }
    : undefined;
}

/** The code and message of an error answer's body; `HttpError<status>` and a bounded excerpt otherwise. */
export function errorBody(status: number, text: string): { code: string; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const found = errorEnvelope(json);
  return found
    ? { code: found.code, message: found.message }
    : { code: `HttpError${status}`, message: excerpt(text) };
}

/** Object keys in lower case, `depth` objects down (arrays do not count; other values unchanged). */
function lowerKeys(value: unknown, depth: number): unknown {
  if (depth === 0 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => lowerKeys(v, depth));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.toLowerCase(), lowerKeys(v, depth - 1)]),
  );
}

/** At most 300 characters on one line: enough to recognise a proxy's error page, not to flood a log. */
export function excerpt(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** An ArmError made here (not from an answer): a bad id, a missing address, no token. */
export function localError(code: string, message: string, attempts = 0): ArmError {
  return { status: 0, code, message, attempts };
}
