import type { HttpRequest, HttpResponseInit } from "@azure/functions";
import { parseJsonWith, type Result } from "@quiesce/protocol";
import { z } from "zod";
import { settingName } from "../options";

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

/** The body's text, or the answer that refuses it. */
export type BodyResult = Result<string, HttpResponseInit>;

/**
 * Reads the body up to `limit` bytes: a declared Content-Length over the limit is refused
 * before reading, and a body that turns out longer (chunked, or lying) is cut off at the limit.
 */
export async function readBody(
  request: HttpRequest,
  limit: number,
  limitName: string = settingName("MAX_BODY_BYTES"),
): Promise<BodyResult> {
  const tooLarge = (): BodyResult => ({
    ok: false,
    error: problem(413, `body larger than the limit of ${limit} bytes (${limitName})`),
  });
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return tooLarge();
  const stream = request.body;
  if (!stream) return { ok: true, value: "" };
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
      value: new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)),
    };
  } catch {
    return { ok: false, error: problem(400, "body is not valid UTF-8") };
  }
}

/**
 * The body as JSON, with the error message a caller can act on. Any JSON value passes here: what
 * it must hold is the route's schema's to say (compose.ts's jsonBody), naming the field.
 */
export function parseJson(text: string): Result<unknown, HttpResponseInit> {
  const json = parseJsonWith(z.unknown(), text);
  return json.ok ? json : { ok: false, error: problem(400, `body is ${json.error}`) };
}
