import { parseJsonWith } from "@quiesce/protocol";
import { z } from "zod";

/**
 * Minimal calls against the loopback ARM, for tests and for trying it by hand: a token from the
 * managed-identity endpoint (what `ManagedIdentityCredential` does, without MSAL's cache), and
 * one ARM request with its status, headers and parsed JSON body.
 */

const TokenAnswer = z.object({ access_token: z.string(), expires_on: z.string() });

export async function armToken(
  identity: { readonly endpoint: string; readonly header: string },
  options: { resource?: string; clientId?: string } = {},
): Promise<string> {
  const q = new URLSearchParams({
    "api-version": "2019-08-01",
    resource: options.resource ?? "https://management.azure.com",
    ...(options.clientId !== undefined ? { client_id: options.clientId } : {}),
  });
  const res = await fetch(`${identity.endpoint}?${q}`, {
    headers: { "x-identity-header": identity.header },
  });
  const text = await res.text();
  const parsed = parseJsonWith(TokenAnswer, text);
  if (!res.ok || !parsed.ok) throw new Error(`token endpoint answered ${res.status}: ${text}`);
  return parsed.value.access_token;
}

export interface ArmAnswerSeen {
  readonly status: number;
  readonly headers: Headers;
  /** The JSON body (ARM errors: `{ error: { code, message } }`), undefined when empty. */
  readonly body: unknown;
}

export async function armCall(
  armUrl: string,
  token: string | undefined,
  method: string,
  pathAndQuery: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<ArmAnswerSeen> {
  const res = await fetch(`${armUrl}${pathAndQuery}`, {
    method,
    headers: {
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  const json = text === "" ? undefined : parseJsonWith(z.unknown(), text);
  if (json && !json.ok) throw new Error(`ARM answered ${res.status} with a body that is not JSON`);
  return { status: res.status, headers: res.headers, body: json?.value };
}

/** The `error.code` of an ARM error answer (undefined for anything else). */
export function errorCode(answer: ArmAnswerSeen): string | undefined {
  const r = z.object({ error: z.object({ code: z.string() }) }).safeParse(answer.body);
  return r.success ? r.data.error.code : undefined;
}
