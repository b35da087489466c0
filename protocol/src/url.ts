import { z } from "zod";

/**
 * The one rule for every URL Quiesce sends a credential to (a bearer token, a shared key, a
 * signed request, a secret webhook URL) or trusts the answer of: https, or plain http only to a
 * loopback address (tests, `npm start`, a stand-in on the same host), so no secret or probe ever
 * crosses a network in clear. Hostnames are compared after WHATWG parsing, which lower-cases them
 * and normalises IP literals (`[0:0::1]` is `[::1]`), so a spelling cannot slip past.
 */
const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

export const HTTPS_OR_LOOPBACK =
  "must be https (plain http only to a loopback address: 127.0.0.1, [::1] or localhost)";

export function isHttpsOrLoopback(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === "https:" || (protocol === "http:" && LOOPBACK_HOSTS.includes(hostname));
}

export const HttpsOrLoopbackUrl = z.url().refine(isHttpsOrLoopback, HTTPS_OR_LOOPBACK);
