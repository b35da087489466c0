/**
 * Why a request got no HTTP answer, in words an operator can act on. Node's fetch (undici) throws
 * a bare "fetch failed" and keeps the reason in `cause`: a system error (`code` ECONNREFUSED,
 * ENOTFOUND...), an undici error (`code` UND_ERR_*), a TLS error, or an AggregateError holding
 * one per address tried. A timeout of our own AbortSignal is thrown as is, named TimeoutError.
 */

const WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ECONNABORTED: "connection aborted",
  EPIPE: "connection closed",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "name lookup failed (temporary: check DNS)",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "no answer in time",
  UND_ERR_BODY_TIMEOUT: "the answer stalled",
  UND_ERR_SOCKET: "the connection was closed before an answer",
  UND_ERR_CLOSED: "the connection was closed before an answer",
};

/** An error's own code, or the first code among an AggregateError's errors. */
function codeOf(e: unknown): string | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && code !== "") return code;
  const errors = (e as { errors?: unknown }).errors;
  if (Array.isArray(errors)) for (const inner of errors) if (codeOf(inner)) return codeOf(inner);
  return undefined;
}

const messageOf = (e: unknown): string =>
  e instanceof Error ? e.message : typeof e === "string" ? e : "";

/** "connection refused (ECONNREFUSED)", "no answer within 10 s", or the cause's own message. */
export function fetchFailureText(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && e.name === "TimeoutError")
    return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  // Undici wraps the reason; anything else (a TypeError for a URL fetch refuses) is the reason.
  const cause = e instanceof Error && e.cause !== undefined ? e.cause : e;
  const code = codeOf(cause);
  const words = code ? WORDS[code] : undefined;
  if (code && words) return `${words} (${code})`;
  const message = messageOf(cause) || messageOf(e) || String(cause);
  // The Fetch standard's blocked ports (1, 22, 25, 6000...): undici says only "bad port".
  if (message === "bad port") return "fetch never connects to this port (a blocked 'bad port')";
  // A TLS code (CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID...) comes with a readable message.
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
