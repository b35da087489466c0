import { z } from "zod";
import type { Result } from "../result";

/**
 * CloudEvents 1.0 abuse protection ("HTTP 1.1 Web Hooks for Event Delivery", section 4), which
 * Event Grid uses instead of its validation event when a subscription delivers the CloudEvents
 * schema (learn.microsoft.com "Endpoint validation with CloudEvents schema"): an HTTP OPTIONS
 * request to the exact registered URL carrying `WebHook-Request-Origin` (and optionally
 * `WebHook-Request-Rate`, `WebHook-Request-Callback`); the target consents by answering with
 * `WebHook-Allowed-Origin` (the origin, or `*`) and `WebHook-Allowed-Rate` (required when a rate
 * was asked, recommended otherwise), and `Allow` naming POST. The handshake is no authentication:
 * whoever answers checks the caller by other means (the coordinator: the `?code=` key).
 */

export const WEBHOOK_HEADERS = {
  requestOrigin: "webhook-request-origin",
  requestRate: "webhook-request-rate",
  requestCallback: "webhook-request-callback",
  allowedOrigin: "webhook-allowed-origin",
  allowedRate: "webhook-allowed-rate",
} as const;

/** The origin Event Grid names itself with in the handshake and in every delivery's `Origin`. */
export const EVENT_GRID_ORIGIN = "eventgrid.azure.net";

/** A DNS name ("summarily identifies all sender instances"), not a URL. */
const Origin = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, "a DNS name such as eventgrid.azure.net");

/** "the string representation of a positive integer number greater than zero". */
const Rate = z.string().regex(/^[1-9]\d{0,8}$/, "a positive integer (requests per minute)");

export interface WebhookValidationRequest {
  origin: string;
  /** Requests per minute the sender asked for, if it did. */
  rate: number | null;
}

/** The handshake's request headers (names compared without case), or what is wrong with them. */
export function parseWebhookValidationRequest(
  header: (name: string) => string | null,
): Result<WebhookValidationRequest> {
  const origin = header(WEBHOOK_HEADERS.requestOrigin);
  if (origin === null)
    return { ok: false, error: "no WebHook-Request-Origin header: not a CloudEvents validation" };
  const o = Origin.safeParse(origin.trim());
  if (!o.success)
    return { ok: false, error: `WebHook-Request-Origin: ${o.error.issues[0]?.message}` };
  const rateText = header(WEBHOOK_HEADERS.requestRate);
  if (rateText === null) return { ok: true, value: { origin: o.data, rate: null } };
  const r = Rate.safeParse(rateText.trim());
  if (!r.success)
    return { ok: false, error: `WebHook-Request-Rate: ${r.error.issues[0]?.message}` };
  return { ok: true, value: { origin: o.data, rate: Number(r.data) } };
}

/**
 * The consent: the origin echoed, and no rate limit of the receiver's own (`*`), which also
 * answers a requested rate. `Allow` names the methods of the route.
 */
export function webhookValidationHeaders(
  request: WebhookValidationRequest,
): Record<string, string> {
  return {
    "WebHook-Allowed-Origin": request.origin,
    "WebHook-Allowed-Rate": "*",
    Allow: "POST, OPTIONS",
  };
}
