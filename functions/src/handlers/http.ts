import type { HttpRequest, HttpResponseInit } from "@azure/functions";

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpResponseInit {
  return {
    status,
    jsonBody: body,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    },
  };
}

export const problem = (status: number, error: string, headers: Record<string, string> = {}) =>
  json(status, { error }, headers);

export type BodyResult = { ok: true; text: string } | { ok: false; response: HttpResponseInit };

/**
 * Reads the body up to `limit` bytes: a declared Content-Length over the limit is refused
 * before reading, and a body that turns out longer (chunked, or lying) is cut off at the limit.
 */
export async function readBody(request: HttpRequest, limit: number): Promise<BodyResult> {
  const tooLarge = (): BodyResult => ({
    ok: false,
    response: problem(413, `body larger than the limit of ${limit} bytes (QUIESCE_MAX_BODY_BYTES)`),
  });
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return tooLarge();
  const stream = request.body;
  if (!stream) return { ok: true, text: "" };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return tooLarge();
    }
    chunks.push(value);
  }
  try {
    return {
      ok: true,
      text: new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)),
    };
  } catch {
    return { ok: false, response: problem(400, "body is not valid UTF-8") };
  }
}

/** JSON.parse with the error message a caller can act on. */
export function parseJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; response: HttpResponseInit } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, response: problem(400, `body is not JSON: ${(e as Error).message}`) };
  }
}

export const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();
