import type { Result } from "@quiesce/protocol";

/** Tokens and keys longer than this are refused before any parsing (Entra tokens are ~2 KB). */
const MAX_CREDENTIAL_CHARS = 16_384;

/** Extracts the credential of `Authorization: Bearer <credential>`; the scheme is case-insensitive. */
export function parseBearer(authorization: string | null): Result<string> {
  if (authorization === null || authorization.trim() === "")
    return { ok: false, error: "missing Authorization header (expected: Bearer <token>)" };
  const match = /^\s*Bearer[ \t]+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1])
    return { ok: false, error: "malformed Authorization header (expected: Bearer <token>)" };
  if (match[1].length > MAX_CREDENTIAL_CHARS)
    return { ok: false, error: "credential in the Authorization header is too long" };
  return { ok: true, value: match[1] };
}
